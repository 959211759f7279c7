//! This machine's network addresses, for the sink's printed URL and its Host check, and
//! a remote sink's, resolved.

/// Where a sink URL's server listens: its HOST:PORT resolved.
pub fn resolve(
    url: &crate::domain::sink_url::SinkUrl,
) -> std::io::Result<Vec<std::net::SocketAddr>> {
    use std::net::ToSocketAddrs;
    Ok(url.host_port().to_socket_addrs()?.collect())
}

/// Every address of every interface, link-local ones included; none if they cannot be read.
pub fn interface_addresses() -> Vec<std::net::IpAddr> {
    if_addrs::get_if_addrs()
        .map(|all| all.iter().map(if_addrs::Interface::ip).collect())
        .unwrap_or_default()
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// The kernel's own list of IPv6 addresses (link-local ones too), with loopback's
    /// IPv4, is what the sink must know itself by.
    #[test]
    fn the_kernels_addresses_are_all_found() {
        let found = super::interface_addresses();
        assert!(
            found.contains(&std::net::Ipv4Addr::LOCALHOST.into()),
            "{found:?}"
        );
        let table = std::fs::read_to_string("/proc/net/if_inet6").unwrap_or_default();
        for line in table.lines() {
            let hex = line.split_whitespace().next().unwrap();
            let v6 = std::net::Ipv6Addr::from(u128::from_str_radix(hex, 16).unwrap());
            assert!(found.contains(&v6.into()), "{v6} missing from {found:?}");
        }
    }
}
