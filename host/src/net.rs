//! This machine's network addresses, for the sink's printed URL and its Host check.

#[cfg(unix)]
pub fn interface_addresses() -> Vec<std::net::IpAddr> {
    let mut out = Vec::new();
    let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs fills a list we walk read-only and free once.
    unsafe {
        if libc::getifaddrs(&mut list) != 0 {
            return out;
        }
        let mut cur = list;
        while !cur.is_null() {
            let sa = (*cur).ifa_addr;
            if !sa.is_null() {
                match i32::from((*sa).sa_family) {
                    libc::AF_INET => {
                        let v4 = &*(sa as *const libc::sockaddr_in);
                        out.push(std::net::Ipv4Addr::from(u32::from_be(v4.sin_addr.s_addr)).into());
                    }
                    libc::AF_INET6 => {
                        let v6 = &*(sa as *const libc::sockaddr_in6);
                        out.push(std::net::Ipv6Addr::from(v6.sin6_addr.s6_addr).into());
                    }
                    _ => {}
                }
            }
            cur = (*cur).ifa_next;
        }
        libc::freeifaddrs(list);
    }
    out
}

#[cfg(not(unix))]
pub fn interface_addresses() -> Vec<std::net::IpAddr> {
    Vec::new()
}
