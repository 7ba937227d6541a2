//! Percent-escapes (RFC 3986), for the API's path segments and the console's own addresses.

/// Everything but the unreserved characters of RFC 3986 escaped.
pub fn percent_encoded(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// `%XX` escapes decoded as UTF-8; a malformed escape is kept as written.
pub fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| text.get(i + 1..i + 3))
            .flatten()
            // Two hex digits: `from_str_radix` alone would also take a sign (`%+1`).
            .filter(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_unreserved_characters_stay_as_they_are() {
        assert_eq!(percent_encoded("org_a-1.b~"), "org_a-1.b~");
        assert_eq!(percent_encoded("a b/c?d"), "a%20b%2Fc%3Fd");
        assert_eq!(percent_encoded("é"), "%C3%A9");
    }

    #[test]
    fn escapes_decode_as_utf8_and_a_malformed_one_is_kept() {
        assert_eq!(percent_decoded("a%20b%2Fc"), "a b/c");
        assert_eq!(percent_decoded("%C3%A9"), "é");
        assert_eq!(percent_decoded("100%"), "100%");
        assert_eq!(percent_decoded("%zz%+1%4"), "%zz%+1%4");
        assert_eq!(percent_decoded(&percent_encoded("a&b c/é")), "a&b c/é");
    }
}
