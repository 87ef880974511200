//! Reading lines from a pipe without trusting the other end: a line may be endless, may not be
//! UTF-8, and may end in CR LF, LF or CR.

use std::io::{self, BufRead};

/// The longest line kept; the rest of a longer line is dropped (the protocol allows a reader to
/// cut very long lines), so a runaway peer cannot make us allocate without bound.
pub const MAX_LINE: usize = 64 * 1024;

/// Reads lines (without their endings) cut to [`MAX_LINE`] bytes and decoded lossily.
#[derive(Debug)]
pub struct LineReader<R> {
    inner: R,
    // The last line ended with CR: an LF that follows belongs to that ending. Remembered rather
    // than peeked at, because peeking would block on a pipe whose peer ends lines with CR alone.
    after_cr: bool,
}

impl<R: BufRead> LineReader<R> {
    /// Reads lines from `inner`.
    pub fn new(inner: R) -> LineReader<R> {
        LineReader {
            inner,
            after_cr: false,
        }
    }

    /// The next line, or `None` at the end of the input.
    pub fn read_line(&mut self) -> io::Result<Option<String>> {
        let mut buf: Vec<u8> = Vec::new();
        let mut any = false;
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                break;
            }
            if std::mem::take(&mut self.after_cr) && chunk[0] == b'\n' {
                self.inner.consume(1);
                continue;
            }
            any = true;
            match chunk.iter().position(|&b| b == b'\n' || b == b'\r') {
                Some(i) => {
                    let take = i.min(MAX_LINE.saturating_sub(buf.len()));
                    buf.extend_from_slice(&chunk[..take]);
                    self.after_cr = chunk[i] == b'\r';
                    self.inner.consume(i + 1);
                    return Ok(Some(String::from_utf8_lossy(&buf).into_owned()));
                }
                None => {
                    let n = chunk.len();
                    let take = n.min(MAX_LINE.saturating_sub(buf.len()));
                    buf.extend_from_slice(&chunk[..take]);
                    self.inner.consume(n);
                }
            }
        }
        Ok(any.then(|| String::from_utf8_lossy(&buf).into_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8]) -> Vec<String> {
        let mut r = LineReader::new(io::BufReader::with_capacity(3, input));
        let mut out = Vec::new();
        while let Some(l) = r.read_line().expect("reading memory cannot fail") {
            out.push(l);
        }
        out
    }

    #[test]
    fn every_line_ending_counts() {
        assert_eq!(all(b"a\r\nb\nc\rd"), ["a", "b", "c", "d"]);
        assert_eq!(all(b"a\r\n\r\nb\n"), ["a", "", "b"]);
        assert_eq!(all(b"ab\r\r\n"), ["ab", ""]);
        assert!(all(b"").is_empty());
    }

    #[test]
    fn long_lines_are_cut_and_bad_bytes_replaced() {
        let mut long = vec![b'x'; MAX_LINE + 10];
        long.extend_from_slice(b"\nok\n\xff\n");
        let lines = all(&long);
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].len(), MAX_LINE);
        assert_eq!(lines[1], "ok");
        assert_eq!(lines[2], "\u{fffd}");
    }
}
