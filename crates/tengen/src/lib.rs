//! The library behind the `tengen` command line: each subcommand's work, apart from argument
//! parsing and printing, so that it can be tested without a process.

pub mod analyze;
pub mod play;
pub mod referee;

/// An I/O error in plain words: the system's message without its number ("No such file or
/// directory", not "... (os error 2)").
pub fn io_words(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" (os error ") {
        Some(i) if text.ends_with(')') => text[..i].to_string(),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn io_errors_read_without_their_number() {
        let e = std::fs::File::open("/nonexistent/tengen").expect_err("no such file");
        assert_eq!(super::io_words(&e), "No such file or directory");
        let custom = std::io::Error::other("a reason (with brackets)");
        assert_eq!(super::io_words(&custom), "a reason (with brackets)");
    }
}
