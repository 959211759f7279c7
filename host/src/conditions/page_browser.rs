//! Which processes are the measuring browser's when a page of `serve` runs the
//! benchmark (issue 36): `serve` did not start that browser, so it is not in serve's
//! own process tree, and without this its CPU would count as other work.
//!
//! The rule: the page's request reached serve over a TCP connection. When that
//! connection's other end is a socket of this machine (it is listed in /proc/net/tcp or
//! tcp6 with the page's address as its local end and serve's as its remote), the
//! process holding that socket (a `socket:[inode]` link in its /proc/<pid>/fd) is the
//! browser's network process. Climbing its ancestors while they run the same executable
//! gives the browser's main process (Chromium's network service and renderers are its
//! children, Firefox's main process holds the sockets), and the tree under it is the
//! browser's. A browser whose content processes run another executable and are not
//! children of the socket's owner is only partly found (WebKitGTK's web process is a
//! sibling of its network process).

use std::net::{IpAddr, SocketAddr};

/// What serve knows of the browser behind a page's connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageBrowser {
    /// The browser runs on this machine: the root of its process tree.
    Found { root: u32 },
    /// The connection's other end is not a socket of this machine: the browser runs
    /// elsewhere, and nothing here is its.
    OtherMachine,
    /// The page is on this machine, but its browser's process could not be found (its
    /// /proc entries are another user's): its CPU counts as other work, and the
    /// conditions say so (`Gap::BrowserUnknown`).
    NotFound,
}

/// The browser behind a connection from `peer` to serve's `local` address.
pub fn of_connection(local: SocketAddr, peer: SocketAddr) -> PageBrowser {
    let Some(inode) = socket_inode(local, peer) else {
        return if is_this_machine(peer.ip()) {
            PageBrowser::NotFound
        } else {
            PageBrowser::OtherMachine
        };
    };
    match owner_of(inode) {
        Some(pid) => PageBrowser::Found {
            root: browser_root(pid),
        },
        None => PageBrowser::NotFound,
    }
}

/// A loopback address: the page is on this machine whatever else is found.
fn is_this_machine(ip: IpAddr) -> bool {
    ip.is_loopback()
        || matches!(ip, IpAddr::V6(v6) if v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback()))
}

/// The inode of the socket whose local end is `peer` and remote end `local`.
fn socket_inode(local: SocketAddr, peer: SocketAddr) -> Option<u64> {
    ["/proc/net/tcp", "/proc/net/tcp6"].iter().find_map(|path| {
        let text = std::fs::read_to_string(path).ok()?;
        find_inode(&text, peer, local)
    })
}

/// In a /proc/net/tcp(6) table, the inode of the socket from `from` to `to`.
pub fn find_inode(table: &str, from: SocketAddr, to: SocketAddr) -> Option<u64> {
    table.lines().skip(1).find_map(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        let (l, r) = (parse_endpoint(f.get(1)?)?, parse_endpoint(f.get(2)?)?);
        let same = |a: SocketAddr, b: SocketAddr| a.port() == b.port() && same_ip(a.ip(), b.ip());
        (same(l, from) && same(r, to))
            .then(|| f.get(9)?.parse().ok())
            .flatten()
    })
}

/// IPv4 and its IPv6-mapped form are one address (a dual-stack listener sees the one,
/// the table may hold the other).
fn same_ip(a: IpAddr, b: IpAddr) -> bool {
    a.to_canonical() == b.to_canonical()
}

/// "0100007F:1F90" (IPv4, one little-endian word) or 32 hex digits (IPv6, four
/// little-endian words) and a port, as /proc/net/tcp writes them.
pub fn parse_endpoint(text: &str) -> Option<SocketAddr> {
    let (addr, port) = text.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let word = |i: usize| -> Option<[u8; 4]> {
        let w = u32::from_str_radix(addr.get(i * 8..i * 8 + 8)?, 16).ok()?;
        Some(w.to_le_bytes())
    };
    let ip: IpAddr = match addr.len() {
        8 => IpAddr::from(word(0)?),
        32 => {
            let mut b = [0u8; 16];
            for i in 0..4 {
                b[i * 4..i * 4 + 4].copy_from_slice(&word(i)?);
            }
            IpAddr::from(b)
        }
        _ => return None,
    };
    Some(SocketAddr::new(ip, port))
}

/// The process with `socket:[inode]` among its open files.
fn owner_of(inode: u64) -> Option<u32> {
    let want = format!("socket:[{inode}]");
    std::fs::read_dir("/proc").ok()?.find_map(|e| {
        let pid: u32 = e.ok()?.file_name().to_str()?.parse().ok()?;
        let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?;
        fds.filter_map(Result::ok)
            .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|l| l.as_os_str() == want.as_str()))
            .then_some(pid)
    })
}

/// The top-most ancestor of `pid` that runs the same executable (`pid` itself when its
/// parent runs another).
fn browser_root(pid: u32) -> u32 {
    let exe = super::procfs::exe_of(pid);
    let mut root = pid;
    while let Some(parent) = super::procfs::parent_of(root).filter(|p| *p > 1) {
        if exe.is_none() || super::procfs::exe_of(parent) != exe {
            break;
        }
        root = parent;
    }
    root
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{TcpListener, TcpStream};

    #[test]
    fn proc_net_tcp_endpoints_parse() {
        assert_eq!(
            parse_endpoint("0100007F:1F90"),
            Some("127.0.0.1:8080".parse().unwrap())
        );
        assert_eq!(
            parse_endpoint("00000000000000000000000001000000:0050"),
            Some("[::1]:80".parse().unwrap())
        );
        assert_eq!(
            parse_endpoint("0000000000000000FFFF00000100007F:0050"),
            Some("[::ffff:127.0.0.1]:80".parse().unwrap())
        );
        assert_eq!(parse_endpoint("zz:1"), None);
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n   0: 0100007F:9C40 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 424242 1 0000000000000000 20 4 30 10 -1\n";
        let (from, to) = (
            "127.0.0.1:40000".parse().unwrap(),
            "127.0.0.1:8080".parse().unwrap(),
        );
        assert_eq!(find_inode(table, from, to), Some(424242));
        assert_eq!(
            find_inode(table, to, from),
            None,
            "the other direction is another socket"
        );
    }

    /// A real loopback connection from a child process (bash's /dev/tcp): the page's
    /// end of it is found as that child's, and a connection from this test process as
    /// this process's tree. An address no socket has is not this machine's unless it is
    /// loopback, where its browser is then unknown.
    #[test]
    fn the_process_behind_a_loopback_connection_is_found() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let local = listener.local_addr().unwrap();
        let mut child = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "exec 3<>/dev/tcp/127.0.0.1/{}; exec sleep 30",
                local.port()
            ))
            .spawn()
            .unwrap();
        let (_conn, peer) = listener.accept().unwrap();
        let found = of_connection(local, peer);
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(found, PageBrowser::Found { root: child.id() });
        let _mine = TcpStream::connect(local).unwrap();
        let (_conn, peer) = listener.accept().unwrap();
        assert_eq!(
            of_connection(local, peer),
            PageBrowser::Found {
                root: std::process::id()
            }
        );
        let nobody: SocketAddr = "127.0.0.1:1".parse().unwrap();
        assert_eq!(of_connection(local, nobody), PageBrowser::NotFound);
        let far: SocketAddr = "192.0.2.7:40000".parse().unwrap();
        assert_eq!(of_connection(local, far), PageBrowser::OtherMachine);
    }
}
