//! Text from users, cleaned where it comes in: names and chat are shown to other people, so they
//! lose control characters (NUL, ESC and the like, which can garble a terminal or a log) and the
//! bidirectional embedding, override and isolate marks (U+202A-U+202E, U+2066-U+2069), which can
//! make text read backwards or hide what follows. Tabs and line breaks become spaces.

/// Whether `c` is dropped from user text.
fn unsafe_char(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` without control and bidi-control characters, trimmed.
pub fn clean(text: &str) -> String {
    let spaced: String = text
        .chars()
        .map(|c| {
            if matches!(c, '\t' | '\n' | '\r') {
                ' '
            } else {
                c
            }
        })
        .filter(|&c| !unsafe_char(c))
        .collect();
    spaced.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::clean;

    #[test]
    fn controls_and_bidi_overrides_go() {
        assert_eq!(clean(" A\u{0}B\u{1b}[31mC\u{202e}D\u{2066}E "), "AB[31mCDE");
        assert_eq!(clean("one\ntwo\tthree"), "one two three");
        assert_eq!(clean("名前 é"), "名前 é");
        assert_eq!(clean("\u{202e}\u{0}"), "");
    }
}
