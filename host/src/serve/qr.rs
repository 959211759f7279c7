//! The URL as a QR code in the terminal, for a phone on the same network: two rows of
//! modules per line of text (▀ ▄ █), dark on light, with the quiet zone.

use qrcode::render::unicode::Dense1x2;
use qrcode::QrCode;

pub fn render(url: &str) -> anyhow::Result<String> {
    let code = QrCode::new(url.as_bytes())?;
    Ok(code
        .render::<Dense1x2>()
        .dark_color(Dense1x2::Light)
        .light_color(Dense1x2::Dark)
        .quiet_zone(true)
        .build())
}
