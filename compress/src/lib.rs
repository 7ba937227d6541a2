//! The two encodings a browser accepts from the console's server, at the strongest settings
//! (the files are compressed once, at build time): gzip at level 9 and brotli at quality 11.
//! Shared by `cargo xtask dist`, which writes them beside the build, and the benchmark,
//! which weighs what a server would send.

use std::io::Write;

/// gzip at level 9.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes).expect("writing to memory");
    encoder.finish().expect("writing to memory")
}

/// brotli at quality 11, window 22 (the encoder's default window).
pub fn brotli(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let params = brotli::enc::BrotliEncoderParams { quality: 11, lgwin: 22, ..Default::default() };
    brotli::BrotliCompress(&mut &bytes[..], &mut out, &params).expect("writing to memory");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn both_encodings_decode_back_to_the_input_and_shrink_text() {
        let text = "<li class=\"gpu-cell free\"></li>".repeat(200);
        let mut from_gzip = String::new();
        flate2::read::GzDecoder::new(&gzip(text.as_bytes())[..]).read_to_string(&mut from_gzip).unwrap();
        assert_eq!(from_gzip, text);
        let mut from_brotli = String::new();
        brotli::Decompressor::new(&brotli(text.as_bytes())[..], 4096).read_to_string(&mut from_brotli).unwrap();
        assert_eq!(from_brotli, text);
        assert!(brotli(text.as_bytes()).len() < text.len() / 10);
    }
}
