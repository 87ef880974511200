//! Feeds arbitrary text to the record readers: none may panic, and whatever one reads must write
//! back in the same format and read back as the same record (less what the format cannot carry).

#![no_main]

use libfuzzer_sys::fuzz_target;
use tengen_rules::{BoardSize, Record, RecordFormat};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // The size matters only where the text does not state one (plain lists, SGF without SZ).
    let sizes = [
        BoardSize::STANDARD,
        BoardSize::UNBOUNDED,
        BoardSize::rect(16, 14).expect("valid size"),
        BoardSize::square(100).expect("valid size"),
    ];
    for size in sizes {
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
});
