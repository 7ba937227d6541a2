//! The end-to-end harness: the release console served by the simulator, driven in
//! headless Chromium through chromedriver. Helpers fail the test with a clear message
//! (they panic) instead of returning errors, so tests read as a person's steps.

pub mod browser;
pub mod http;

pub use browser::{Browser, ConsoleEntry, Viewport, WAIT};
