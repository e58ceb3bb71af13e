//! Brain -> manager lines: [`Response`] values and their exact text.
//!
//! This is the only place that decides what a protocol line looks like. Free text is cleaned so a
//! line can never contain a line break or control character, and it is capped in length.

use crate::pos::Pos;
use std::fmt;

/// Longest free text (after the keyword) we print, in characters.
pub const MAX_TEXT_CHARS: usize = 300;

/// `name` in the ABOUT line (also the brain's folder name under `INFO folder`).
pub const ABOUT_NAME: &str = "Rensa";
/// `author` in the ABOUT line.
pub const ABOUT_AUTHOR: &str = "Rensa developers";
/// `country` in the ABOUT line.
pub const ABOUT_COUNTRY: &str = "Unknown";
/// `www` in the ABOUT line (no public home page yet).
pub const ABOUT_WWW: &str = "";

/// One line to the manager.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Response {
    /// `OK` (START, RECTSTART, RESTART, TAKEBACK).
    Ok,
    /// `x,y`: our move.
    Move(Pos),
    /// `x,y x,y ...`: a SWAP2BOARD answer with stones.
    Stones(Vec<Pos>),
    /// `SWAP`.
    Swap,
    /// The ABOUT line.
    About,
    /// `ERROR <text>`.
    Error(String),
    /// `UNKNOWN <text>`.
    Unknown(String),
    /// `MESSAGE <text>` (shown to the user; also Yixin's `MESSAGE REALTIME ...` lines).
    Message(String),
    /// `FORBID XXYY....`.
    Forbid(Vec<Pos>),
    /// `INFO <text>`: GUI analysis detail (only after the GUI asked for it).
    Info(String),
}

/// Text made safe for one protocol line.
fn clean(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(MAX_TEXT_CHARS)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if text.chars().nth(MAX_TEXT_CHARS).is_some() {
        out.push_str("...");
    }
    out
}

/// Writes stones as a protocol line does: `x,y x,y ...`.
pub(crate) fn write_stones(f: &mut fmt::Formatter<'_>, stones: &[Pos]) -> fmt::Result {
    let parts: Vec<String> = stones.iter().map(Pos::to_string).collect();
    f.write_str(&parts.join(" "))
}

impl fmt::Display for Response {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Response::Ok => f.write_str("OK"),
            Response::Move(p) => write!(f, "{p}"),
            Response::Stones(ps) => write_stones(f, ps),
            Response::Swap => f.write_str("SWAP"),
            Response::About => write!(
                f,
                "name=\"{ABOUT_NAME}\", version=\"{}\", author=\"{ABOUT_AUTHOR}\", country=\"{ABOUT_COUNTRY}\", www=\"{ABOUT_WWW}\"",
                env!("CARGO_PKG_VERSION")
            ),
            Response::Error(t) => write!(f, "ERROR {}", clean(t)),
            Response::Unknown(t) => write!(f, "UNKNOWN {}", clean(t)),
            Response::Message(t) => write!(f, "MESSAGE {}", clean(t)),
            Response::Forbid(ps) => {
                f.write_str("FORBID ")?;
                for p in ps {
                    write!(f, "{:02}{:02}", p.x, p.y)?;
                }
                f.write_str(".")
            }
            Response::Info(t) => write!(f, "INFO {}", clean(t)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_text() {
        assert_eq!(Response::Ok.to_string(), "OK");
        assert_eq!(Response::Move(Pos::new(7, 12)).to_string(), "7,12");
        assert_eq!(
            Response::Stones(vec![Pos::new(7, 7), Pos::new(8, 7), Pos::new(9, 9)]).to_string(),
            "7,7 8,7 9,9"
        );
        assert_eq!(Response::Swap.to_string(), "SWAP");
        assert_eq!(
            Response::Forbid(vec![Pos::new(9, 12), Pos::new(10, 11)]).to_string(),
            "FORBID 09121011."
        );
        assert_eq!(Response::Forbid(vec![]).to_string(), "FORBID .");
        assert_eq!(Response::Error("a\nb".into()).to_string(), "ERROR a b");
        assert_eq!(Response::Unknown("FOO".into()).to_string(), "UNKNOWN FOO");
        assert_eq!(Response::Message("hi".into()).to_string(), "MESSAGE hi");
        let about = Response::About.to_string();
        assert!(about.starts_with("name=\"Rensa\", version=\""));
        assert!(about.contains(env!("CARGO_PKG_VERSION")));
        assert!(Response::Error("x".repeat(5000)).to_string().len() < 400);
    }
}
