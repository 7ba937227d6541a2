//! HTML written as one string (the node cards' bodies, set whole for speed), where text
//! cannot be added unescaped: markup can only be a `&'static str`, which is the console's
//! own code, and everything else goes through [`Html::text`].

use crate::domain::words::text::visible_controls;
use std::fmt::{self, Write};

#[derive(Default)]
pub struct Html(String);

impl Html {
    pub fn with_capacity(bytes: usize) -> Self {
        Html(String::with_capacity(bytes))
    }

    /// Markup of the console's own: tags, attribute names, class names.
    pub fn markup(&mut self, markup: &'static str) -> &mut Self {
        self.0.push_str(markup);
        self
    }

    /// Any text (the API's names, numbers, sentences built from them), escaped for element
    /// text and double-quoted attribute values alike, so that a name written like markup
    /// shows as text, and with bidirectional controls shown, not obeyed
    /// ([`visible_controls`]), so that a name cannot pose as another.
    pub fn text(&mut self, text: impl fmt::Display) -> &mut Self {
        // Writing into a String cannot fail.
        let _ = write!(Escaping(&mut self.0), "{text}");
        self
    }

    /// Another piece written the same way, so escaped as this one is.
    pub fn append(&mut self, piece: Html) -> &mut Self {
        self.0.push_str(&piece.0);
        self
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

/// Escapes what is written through it into the string it holds.
struct Escaping<'a>(&'a mut String);

impl Write for Escaping<'_> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        let visible = visible_controls(text);
        let mut rest: &str = &visible;
        while let Some(at) = rest.find(['&', '<', '>', '"', '\'']) {
            self.0.push_str(&rest[..at]);
            self.0.push_str(match rest.as_bytes()[at] {
                b'&' => "&amp;",
                b'<' => "&lt;",
                b'>' => "&gt;",
                b'"' => "&quot;",
                _ => "&#39;",
            });
            rest = &rest[at + 1..];
        }
        self.0.push_str(rest);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_for_element_text_and_attributes_and_markup_is_kept() {
        let mut html = Html::default();
        html.markup(r#"<a title=""#)
            .text(r#"<img src=x onerror="a('b')"> & co"#)
            .markup(r#"">"#)
            .text(42)
            .markup("</a>");
        assert_eq!(
            html.into_string(),
            r#"<a title="&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt; &amp; co">42</a>"#
        );
    }

    #[test]
    fn bidirectional_controls_in_text_are_shown_not_obeyed() {
        let mut html = Html::default();
        html.text("\u{202E}gnp.exe");
        assert_eq!(html.into_string(), "⟨RLO⟩gnp.exe");
    }

    #[test]
    fn formatted_text_is_escaped_across_its_pieces() {
        let mut html = Html::default();
        html.text(format_args!("{} of {}", "<b>", "'x'"));
        assert_eq!(html.into_string(), "&lt;b&gt; of &#39;x&#39;");
    }
}
