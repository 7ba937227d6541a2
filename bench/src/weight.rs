//! Weight: the bytes of every file a first load fetches, raw and as a server would send
//! them precompressed (gzip at level 9, brotli at quality 11).

use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileWeight {
    /// The path on the server, e.g. `/reservations-console-3f2a_bg.wasm`.
    pub path: String,
    pub raw: usize,
    pub gzip: usize,
    pub brotli: usize,
}

impl FileWeight {
    pub fn of(path: String, bytes: &[u8]) -> FileWeight {
        FileWeight { path, raw: bytes.len(), gzip: compress::gzip(bytes).len(), brotli: compress::brotli(bytes).len() }
    }
}

/// Every file of one first load, largest (brotli) first.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Weight {
    pub files: Vec<FileWeight>,
    pub total: Total,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Total {
    pub raw: usize,
    pub gzip: usize,
    pub brotli: usize,
}

impl Weight {
    pub fn new(mut files: Vec<FileWeight>) -> Weight {
        files.sort_by(|a, b| b.brotli.cmp(&a.brotli).then_with(|| a.path.cmp(&b.path)));
        let total = Total {
            raw: files.iter().map(|f| f.raw).sum(),
            gzip: files.iter().map(|f| f.gzip).sum(),
            brotli: files.iter().map(|f| f.brotli).sum(),
        };
        Weight { files, total }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_weighed_raw_and_in_both_encodings() {
        let text = "<tr><td>node-1</td><td>ready</td></tr>\n".repeat(200);
        let file = FileWeight::of("/index.html".into(), text.as_bytes());
        let expected = (text.len(), compress::gzip(text.as_bytes()).len(), compress::brotli(text.as_bytes()).len());
        assert_eq!((file.raw, file.gzip, file.brotli), expected);
        assert!(file.brotli < file.gzip && file.gzip < file.raw / 10, "{file:?}");
    }

    #[test]
    fn totals_add_up_every_file_and_the_largest_comes_first() {
        let weight = Weight::new(vec![
            FileWeight { path: "/a.css".into(), raw: 10, gzip: 5, brotli: 4 },
            FileWeight { path: "/b.wasm".into(), raw: 100, gzip: 50, brotli: 40 },
        ]);
        assert_eq!(weight.total, Total { raw: 110, gzip: 55, brotli: 44 });
        assert_eq!(weight.files[0].path, "/b.wasm");
    }
}

/// Bytes on the wire (resource timing's `transferSize`: headers and the encoded body) as
/// Chromium fetched them from the simulator, which serves the precompressed files.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Wire {
    /// Connect, HTTP cache empty.
    pub first_load: u64,
    /// Connect again, HTTP cache kept: only what revalidating `no-cache` files costs.
    pub repeat_load: u64,
    /// One read of the large reservation's nodes (1,000 nodes × 8 GPUs), as the page polls
    /// it; `None` when the connected part of the run did not happen.
    pub poll_json: Option<u64>,
}
