//! A virtual display for a browser that has no headless mode (WebKitGTK), started when
//! there is no display to use: Xvfb on the first free display number, ended (and, on
//! Linux, killed with us) when the run ends.

use anyhow::{bail, Context, Result};
use std::path::Path;
use std::time::{Duration, Instant};

pub struct VirtualDisplay {
    child: std::process::Child,
    /// ":99", for DISPLAY.
    pub name: String,
}

/// The display the browser should use: DISPLAY's, or one started here.
pub enum Display {
    Existing(String),
    Started(VirtualDisplay),
}

impl Display {
    pub fn name(&self) -> &str {
        match self {
            Display::Existing(name) => name,
            Display::Started(v) => &v.name,
        }
    }

    pub fn find_or_start() -> Result<Display> {
        match std::env::var("DISPLAY") {
            Ok(d) if !d.is_empty() => Ok(Display::Existing(d)),
            _ => VirtualDisplay::start().map(Display::Started),
        }
    }
}

impl VirtualDisplay {
    pub fn start() -> Result<VirtualDisplay> {
        for number in 90..140 {
            if Path::new(&format!("/tmp/.X{number}-lock")).exists() {
                continue;
            }
            if let Some(v) = try_display(number)? {
                return Ok(v);
            }
        }
        bail!("no free X display number from :90 to :139 for Xvfb")
    }
}

/// Xvfb on `:number`, once its socket is there; None when it exited (the number was
/// taken after all).
fn try_display(number: u32) -> Result<Option<VirtualDisplay>> {
    let name = format!(":{number}");
    let mut cmd = std::process::Command::new("Xvfb");
    cmd.args([&name, "-screen", "0", "1280x800x24", "-nolisten", "tcp"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    #[cfg(target_os = "linux")]
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(super::watchdog::die_with_parent);
    }
    let mut child = cmd.spawn().context(
        "there is no display and Xvfb could not be started (Debian/Ubuntu: `sudo apt-get install xvfb`)",
    )?;
    let socket = format!("/tmp/.X11-unix/X{number}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if child.try_wait()?.is_some() {
            return Ok(None);
        }
        if Path::new(&socket).exists() {
            log::info!("started Xvfb on {name}");
            return Ok(Some(VirtualDisplay { child, name }));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    bail!("Xvfb on {name} did not open its socket within 10 s")
}

impl Drop for VirtualDisplay {
    /// SIGTERM first: Xvfb removes its lock file and socket only then.
    fn drop(&mut self) {
        #[cfg(unix)]
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
