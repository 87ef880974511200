//! Short excerpts of the text an error is about.

/// The most characters of someone's text an error keeps: enough to recognise the text, never
/// the whole of a pasted 50 MB token.
pub(crate) const EXCERPT_CHARS: usize = 40;

/// `text` cut to its first [`EXCERPT_CHARS`] characters, with `…` when something was cut.
pub(crate) fn excerpt(text: &str) -> String {
    match text.char_indices().nth(EXCERPT_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_cut_on_a_character_boundary() {
        assert_eq!(excerpt("h8x"), "h8x");
        let forty = "é".repeat(EXCERPT_CHARS);
        assert_eq!(excerpt(&forty), forty);
        assert_eq!(excerpt(&format!("{forty}z")), format!("{forty}…"));
        assert_eq!(
            excerpt(&"x".repeat(1 << 20)).chars().count(),
            EXCERPT_CHARS + 1
        );
    }
}
