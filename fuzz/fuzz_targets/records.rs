//! Feeds arbitrary text to the record readers: none may panic, and whatever one reads must write
//! back in the same format and read back as the same record (less what the format cannot carry).
//! The same bytes also make a record of points near the ends of `i32` and the unbounded board's
//! bound, which must be written, read and replayed with typed errors only.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tengen_rules::{
    BoardSize, ForbiddenPolicy, MAX_UNBOUNDED_COORD, PlayError, Point, Record, RecordError,
    RecordFormat, Rule,
};

fn sizes() -> [BoardSize; 4] {
    [
        BoardSize::STANDARD,
        BoardSize::UNBOUNDED,
        BoardSize::rect(16, 14).expect("valid size"),
        BoardSize::square(100).expect("valid size"),
    ]
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // The size matters only where the text does not state one (plain lists, SGF without SZ).
    for size in sizes() {
        let _ = Record::parse_auto(&text, size);
        for format in RecordFormat::ALL {
            let Ok(record) = Record::parse(&text, format, size) else {
                continue;
            };
            let written = record
                .write(format)
                .expect("a record that was read can be written in its format");
            assert_eq!(
                Record::parse(&written, format, size),
                Ok(record.normalized(format)),
                "{format} round trip of {written:?}"
            );
        }
    }
    extreme_points(data);
});

// Where points cluster: the origin, the unbounded board's bound and the ends of i32.
const ANCHORS: [i32; 7] = [
    0,
    MAX_UNBOUNDED_COORD,
    -MAX_UNBOUNDED_COORD,
    i32::MAX,
    i32::MIN,
    MAX_UNBOUNDED_COORD + 1,
    7,
];

// Three bytes a point: an anchor for each coordinate (high and low nibble) and two small signed
// offsets packed in the last byte, so that stones meet and make lines at the extremes.
fn extreme_points(data: &[u8]) {
    let points: Vec<Point> = data
        .chunks_exact(3)
        .map(|c| {
            let ax = ANCHORS[usize::from(c[0] & 0x0f) % ANCHORS.len()];
            let ay = ANCHORS[usize::from(c[0] >> 4) % ANCHORS.len()];
            let dx = i32::from(c[1] as i8 % 8);
            let dy = i32::from(c[2] as i8 % 8);
            Point::new(ax.wrapping_add(dx), ay.wrapping_add(dy))
        })
        .collect();
    for size in sizes() {
        let mut record = Record::new(size);
        record.moves = points.clone();
        let all_on = points.iter().all(|&p| size.contains(p));
        for format in RecordFormat::ALL {
            match record.write(format) {
                Ok(text) => {
                    assert!(all_on, "{format} wrote a move off the {size} board");
                    assert_eq!(
                        Record::parse(&text, format, size),
                        Ok(record.normalized(format)),
                        "{format} round trip of {text:?}"
                    );
                }
                Err(RecordError::MoveOffBoard { point, .. }) => assert!(!size.contains(point)),
                Err(RecordError::UnsupportedBoard { .. }) => {}
                Err(e) => panic!("{format}: unexpected {e}"),
            }
        }
        for rule in Rule::ALL {
            if let Err(e) = record.replay(rule, ForbiddenPolicy::Lose) {
                let p = points[e.move_number - 1];
                if let PlayError::OffBoard(_) = e.error {
                    assert!(!size.contains(p), "{p:?} is on the {size} board");
                }
            }
        }
    }
}
