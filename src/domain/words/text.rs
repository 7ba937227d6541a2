//! API text as shown: a name holding bidirectional controls (U+202E "right-to-left
//! override" and friends) could render as another name (`exe.png` reversed into
//! `gnp.exe`). Every API name on screen goes through [`visible_controls`], which replaces
//! each such control with its abbreviation in angle brackets, so the name shows what it is.

use std::borrow::Cow;

/// The abbreviation of a bidirectional formatting character, `None` for any other.
fn control_name(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{061C}' => "ALM",
        '\u{200E}' => "LRM",
        '\u{200F}' => "RLM",
        '\u{202A}' => "LRE",
        '\u{202B}' => "RLE",
        '\u{202C}' => "PDF",
        '\u{202D}' => "LRO",
        '\u{202E}' => "RLO",
        '\u{2066}' => "LRI",
        '\u{2067}' => "RLI",
        '\u{2068}' => "FSI",
        '\u{2069}' => "PDI",
        _ => return None,
    })
}

/// `text` with every bidirectional control shown as `⟨RLO⟩` etc.; borrowed when it has none.
pub fn visible_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| control_name(c).is_some()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match control_name(c) {
            Some(name) => {
                out.push('⟨');
                out.push_str(name);
                out.push('⟩');
            }
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bidirectional_controls_are_made_visible() {
        assert_eq!(visible_controls("\u{202E}gnp.exe"), "⟨RLO⟩gnp.exe");
        assert_eq!(visible_controls("a\u{2066}b\u{2069}\u{200F}"), "a⟨LRI⟩b⟨PDI⟩⟨RLM⟩");
        assert!(matches!(visible_controls("train-run-7 ünï"), Cow::Borrowed("train-run-7 ünï")));
    }
}
