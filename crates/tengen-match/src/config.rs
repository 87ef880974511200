//! What a match is made of, read from the command line's words: engines, time controls, the
//! SPRT's settings.

use std::path::PathBuf;
use std::str::FromStr;

use serde::Serialize;

use crate::MatchError;
use crate::stats::Sprt;

/// How to start one brain, and what to tell it.
///
/// Written on the command line as `key=value` words (see [`EngineSpec::parse`]).
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct EngineSpec {
    /// The name in tables and records.
    pub name: String,
    /// The program.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// The working directory (default: the runner's).
    pub dir: Option<PathBuf>,
    /// Extra `INFO key value` lines sent after the runner's own.
    pub options: Vec<(String, String)>,
}

impl EngineSpec {
    /// Reads an engine from `key=value` words:
    ///
    /// | word | meaning |
    /// | --- | --- |
    /// | `cmd=PROGRAM [ARGS...]` | the program; the value is split like a shell would (quotes `'...'` and `"..."`, backslash escapes), so `cmd="python3 bot.py expert"` gives a program and two arguments |
    /// | `arg=ARG` | one more argument, taken verbatim (spaces and all); repeatable |
    /// | `name=NAME` | the name (default: the program's file name) |
    /// | `dir=DIR` | the working directory |
    /// | `option=KEY=VALUE` | sent as `INFO KEY VALUE` before the game; repeatable |
    ///
    /// ```
    /// use tengen_match::EngineSpec;
    /// let words = ["cmd=python3 'my bot.py' expert", "arg=--fast", "name=bot", "option=hash_size=1024"];
    /// let e = EngineSpec::parse(&words)?;
    /// assert_eq!(e.program, "python3");
    /// assert_eq!(e.args, ["my bot.py", "expert", "--fast"]);
    /// assert_eq!(e.options, [("hash_size".to_string(), "1024".to_string())]);
    /// # Ok::<(), tengen_match::MatchError>(())
    /// ```
    pub fn parse<S: AsRef<str>>(words: &[S]) -> Result<EngineSpec, MatchError> {
        let bad = |why: String| MatchError::Engine(why);
        let mut program = None;
        let mut args = Vec::new();
        let mut extra = Vec::new();
        let mut name = None;
        let mut dir = None;
        let mut options = Vec::new();
        for word in words {
            let word = word.as_ref();
            let Some((key, value)) = word.split_once('=') else {
                return Err(bad(format!(
                    "{word:?} is not key=value (expected cmd=, arg=, name=, dir= or option=)"
                )));
            };
            match key {
                "cmd" => {
                    let mut parts = shell_split(value).map_err(bad)?.into_iter();
                    program = Some(
                        parts
                            .next()
                            .ok_or_else(|| bad("cmd= names no program".into()))?,
                    );
                    args = parts.collect();
                }
                "arg" => extra.push(value.to_string()),
                "name" if !value.trim().is_empty() => name = Some(value.trim().to_string()),
                "dir" => dir = Some(PathBuf::from(value)),
                "option" => {
                    let Some((k, v)) = value.split_once('=') else {
                        return Err(bad(format!("option={value} is not option=KEY=VALUE")));
                    };
                    if k.trim().is_empty() || k.contains(char::is_whitespace) {
                        return Err(bad(format!("option={value}: bad INFO key {k:?}")));
                    }
                    options.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
                }
                _ => return Err(bad(format!("unknown engine setting {key:?} in {word:?}"))),
            }
        }
        let program = program.ok_or_else(|| bad("an engine needs cmd=PROGRAM".into()))?;
        args.extend(extra);
        let name = name.unwrap_or_else(|| {
            std::path::Path::new(&program)
                .file_name()
                .map_or_else(|| program.clone(), |f| f.to_string_lossy().into_owned())
        });
        Ok(EngineSpec {
            name,
            program,
            args,
            dir,
            options,
        })
    }
}

/// Splits text into words as a POSIX shell does, without expansions: whitespace separates,
/// `'...'` is literal, `"..."` keeps spaces (a backslash escapes `"`, `\` and `$` in it), and a
/// backslash outside quotes escapes the next character.
pub fn shell_split(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(format!("unclosed ' in {text:?}")),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(format!("unclosed \" in {text:?}")),
                        },
                        Some(c) => word.push(c),
                        None => return Err(format!("unclosed \" in {text:?}")),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err(format!("a lone backslash ends {text:?}")),
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// The clock.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TimeControl {
    /// A fixed time for every move (`INFO timeout_turn`), no match clock (`timeout_match 0`).
    PerMove {
        /// Milliseconds per move.
        ms: u64,
    },
    /// A match clock with an increment (Fischer): `INFO timeout_match` once, `INFO time_left`
    /// before every move; the runner keeps the clock and adds the increment after each move.
    Increment {
        /// The clock's start, milliseconds.
        base_ms: u64,
        /// Added after each move, milliseconds.
        inc_ms: u64,
    },
}

impl FromStr for TimeControl {
    type Err = MatchError;

    /// `MS` (per move, in milliseconds: `1000`) or `SECONDS+INCREMENT` in seconds, decimals
    /// allowed (`60+1`, `10+0.1`).
    fn from_str(s: &str) -> Result<TimeControl, MatchError> {
        let bad = || MatchError::TimeControl(s.to_string());
        let secs = |t: &str| -> Result<u64, MatchError> {
            let v: f64 = t.trim().parse().map_err(|_| bad())?;
            if !(0.0..1e9).contains(&v) {
                return Err(bad());
            }
            Ok((v * 1000.0).round() as u64)
        };
        match s.split_once('+') {
            Some((base, inc)) => {
                let tc = TimeControl::Increment {
                    base_ms: secs(base)?,
                    inc_ms: secs(inc)?,
                };
                if matches!(
                    tc,
                    TimeControl::Increment {
                        base_ms: 0,
                        inc_ms: 0
                    }
                ) {
                    return Err(bad());
                }
                Ok(tc)
            }
            None => match s.trim().parse::<u64>() {
                Ok(ms) if ms > 0 => Ok(TimeControl::PerMove { ms }),
                _ => Err(bad()),
            },
        }
    }
}

/// Reads the SPRT's settings from `key=value` words: `elo0=0 elo1=5 alpha=0.05 beta=0.05`
/// (each optional, those the defaults).
pub fn parse_sprt<S: AsRef<str>>(words: &[S]) -> Result<Sprt, MatchError> {
    let mut sprt = Sprt::default();
    for word in words {
        let word = word.as_ref();
        let bad = || MatchError::Sprt(word.to_string());
        let (key, value) = word.split_once('=').ok_or_else(bad)?;
        let v: f64 = value.trim().parse().map_err(|_| bad())?;
        match key.trim() {
            "elo0" => sprt.elo0 = v,
            "elo1" => sprt.elo1 = v,
            "alpha" => sprt.alpha = v,
            "beta" => sprt.beta = v,
            _ => return Err(bad()),
        }
    }
    let rate = |r: f64| r > 0.0 && r < 0.5;
    if !(sprt.elo1 > sprt.elo0 && rate(sprt.alpha) && rate(sprt.beta)) {
        return Err(MatchError::Sprt(
            "need elo1 > elo0 and 0 < alpha, beta < 0.5".into(),
        ));
    }
    Ok(sprt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words() {
        assert_eq!(
            shell_split(r#"python3  "a b.py" 'c d' e\ f "x\"y""#),
            Ok(vec![
                "python3".into(),
                "a b.py".into(),
                "c d".into(),
                "e f".into(),
                "x\"y".into()
            ])
        );
        assert_eq!(shell_split("  "), Ok(vec![]));
        assert_eq!(shell_split("''"), Ok(vec![String::new()]));
        assert!(shell_split("'open").is_err());
    }

    #[test]
    fn engines() -> Result<(), MatchError> {
        let e = EngineSpec::parse(&[
            "cmd=target/release/pbrain-tengen",
            "arg=--level",
            "arg=beginner",
        ])?;
        assert_eq!(e.name, "pbrain-tengen");
        assert_eq!(e.args, ["--level", "beginner"]);
        assert!(EngineSpec::parse(&["name=x"]).is_err());
        assert!(EngineSpec::parse(&["cmd=x", "colour=red"]).is_err());
        assert!(EngineSpec::parse(&["cmd=x", "option=nokey"]).is_err());
        assert!(EngineSpec::parse(&["cmd="]).is_err());
        Ok(())
    }

    #[test]
    fn time_controls() {
        assert_eq!(
            "300".parse::<TimeControl>().ok(),
            Some(TimeControl::PerMove { ms: 300 })
        );
        assert_eq!(
            "60+1".parse::<TimeControl>().ok(),
            Some(TimeControl::Increment {
                base_ms: 60_000,
                inc_ms: 1000
            })
        );
        assert_eq!(
            "2.5+0.1".parse::<TimeControl>().ok(),
            Some(TimeControl::Increment {
                base_ms: 2500,
                inc_ms: 100
            })
        );
        for bad in ["0", "x", "1+", "-1+2", "0+0"] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
        }
    }

    #[test]
    fn sprt_words() {
        let s = parse_sprt(&["elo0=0", "elo1=10", "alpha=0.05", "beta=0.1"]).ok();
        assert_eq!(
            s,
            Some(Sprt {
                elo0: 0.0,
                elo1: 10.0,
                alpha: 0.05,
                beta: 0.1
            })
        );
        assert!(parse_sprt(&["elo0=5", "elo1=0"]).is_err());
        assert!(parse_sprt(&["gamma=1"]).is_err());
    }
}
