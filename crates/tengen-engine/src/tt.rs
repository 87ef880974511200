//! The transposition table: what earlier searches found about a position, by Zobrist hash.
//!
//! Each slot is two words, the key and the packed entry, and an all-zero slot is empty, so the
//! table is allocated zeroed: the system hands out zeroed pages as they are first touched, and a
//! table of any size costs nothing until the search fills it.
//!
//! Search threads share one table without locks: each word is an atomic, and the first word
//! holds the key XOR the entry, so a slot whose two words come from two different writes (two
//! threads storing at once) reads as a miss instead of a wrong entry.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// What a stored score bounds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Bound {
    /// The exact score.
    Exact,
    /// At least this score (a beta cut-off).
    Lower,
    /// At most this score (no move reached alpha).
    Upper,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub key: u64,
    pub best: u32,
    /// Within `i16`: scores stay within ±(WIN + 1).
    pub score: i32,
    /// Within `i8`: the search stores depths from -1 to 120.
    pub depth: i16,
    pub bound: Bound,
}

/// A table of the size asked for could not be had.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableSizeError {
    /// The size asked for, in megabytes.
    pub mb: usize,
}

impl std::fmt::Display for TableSizeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no memory for a {} MB hash table", self.mb)
    }
}

impl std::error::Error for TableSizeError {}

/// A fixed-size table, one entry per slot, deeper results kept over shallower ones; beside it,
/// the positions where a VCF was looked for in vain.
#[derive(Debug)]
pub(crate) struct Table {
    /// `words[2 * i]` is slot i's key XOR its packed entry, `words[2 * i + 1]` the packed entry
    /// (0 when empty).
    words: Vec<AtomicU64>,
    /// Failed VCFs, one word a slot by hash: the key's high bits, and in the low byte the depth
    /// (attacker fours) that failed. Shared by the threads and kept from one search to the
    /// next as the entries are: most of the search's nodes are VCF probes at the leaves, and
    /// most fail.
    vcf_fail: Vec<AtomicU64>,
    /// Whether a search may have written to the table since it was made or last cleared. A
    /// table nobody wrote to is all zeros already, so clearing it is skipped: zeroing a large
    /// table in place takes its whole size in writes (2 GB: over a second), which a brain would
    /// otherwise pay at its first search, outside the search's own clock.
    touched: AtomicBool,
    /// The generation entries are stored with (in their bits [`GENERATION_MASK`]); only entries
    /// of the current one are read (see [`Table::clear`]).
    generation: u64,
}

/// Where an entry's generation sits in its packed word: five bits above the bound's.
const GENERATION_SHIFT: u32 = 58;
const GENERATION_MASK: u64 = 31 << GENERATION_SHIFT;

/// Slots of the failed-VCF table (a power of two: 8 MB).
const VCF_FAIL_SLOTS: usize = 1 << 20;

pub(crate) const NO_MOVE: u32 = u32::MAX;

/// Set in every stored entry, so that no stored entry packs to zero.
const OCCUPIED: u64 = 1 << 63;

fn vcf_slot(key: u64) -> usize {
    (key as usize) & (VCF_FAIL_SLOTS - 1)
}

fn pack(e: &Entry) -> u64 {
    let bound = match e.bound {
        Bound::Exact => 0u64,
        Bound::Lower => 1,
        Bound::Upper => 2,
    };
    OCCUPIED
        | u64::from(e.best)
        | u64::from(e.score as i16 as u16) << 32
        | u64::from(e.depth as i8 as u8) << 48
        | bound << 56
}

fn unpack(key: u64, w: u64) -> Entry {
    Entry {
        key,
        best: w as u32,
        score: i32::from((w >> 32) as u16 as i16),
        depth: i16::from((w >> 48) as u8 as i8),
        bound: match (w >> 56) & 3 {
            0 => Bound::Exact,
            1 => Bound::Lower,
            _ => Bound::Upper,
        },
    }
}

/// Slots in a table of about `mb` megabytes (at least 1024), or `None` past the address space.
fn slots_for(mb: usize) -> Option<usize> {
    let bytes = mb.max(1).checked_mul(1 << 20)?;
    Some((bytes / 16).max(1024))
}

impl Table {
    /// A table using about `mb` megabytes; aborts, as any allocation does, if the system has
    /// not the memory (see [`Table::try_new`]).
    pub(crate) fn new(mb: usize) -> Table {
        Table::try_new(mb).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A table using about `mb` megabytes, or an error when the size is past the address space
    /// or the system refuses the memory.
    pub(crate) fn try_new(mb: usize) -> Result<Table, TableSizeError> {
        let err = TableSizeError { mb };
        let words = slots_for(mb).and_then(|n| n.checked_mul(2)).ok_or(err)?;
        // `vec![0; n]` allocates zeroed memory but aborts on failure; reserving the same size
        // fallibly first turns a refusal into an error.
        let mut probe: Vec<u64> = Vec::new();
        probe.try_reserve_exact(words).map_err(|_| err)?;
        drop(probe);
        // A zeroed allocation maps its pages lazily, as the search first touches them: a page
        // fault each, inside the search's own clock. Touching them all here was measured (9% of
        // a fresh 300,000-node search's time saved) and left out: a brain makes its table when
        // the first move's clock is already running, outside the search's own timer, and a
        // large table would cost that move up to a second.
        Ok(Table {
            words: bytemuck::zeroed_vec(words),
            vcf_fail: bytemuck::zeroed_vec(VCF_FAIL_SLOTS),
            touched: AtomicBool::new(false),
            generation: 0,
        })
    }

    /// Forgets everything. The entries are not touched: the table moves to its next generation,
    /// and an entry of another one reads as a miss and is overwritten as an empty slot would be.
    /// Zeroing a large table takes its whole size in writes (1 GB: over half a second, in which a
    /// brain answers nothing), and a fresh allocation would pay a page fault per page inside the
    /// next search's time (a 64 MB table: some 18,000 faults, 13% of a 450 ms search on the
    /// 2-core machine). Only when the generations run out, once in 32 clears, is the table
    /// zeroed in place. The failed-VCF table (8 MB) is zeroed each time.
    pub(crate) fn clear(&mut self) {
        if !std::mem::replace(self.touched.get_mut(), false) {
            return;
        }
        for word in self.vcf_fail.iter_mut() {
            *word.get_mut() = 0;
        }
        if self.generation == GENERATION_MASK {
            for word in self.words.iter_mut() {
                *word.get_mut() = 0;
            }
            self.generation = 0;
        } else {
            self.generation += 1 << GENERATION_SHIFT;
        }
    }

    /// Notes that a search is about to use the table (and may write to it): the next
    /// [`Table::clear`] then has work to do. Called once a searcher, not once a store.
    pub(crate) fn mark_touched(&self) {
        self.touched.store(true, Ordering::Relaxed);
    }

    fn index(&self, key: u64) -> usize {
        // Multiply-shift: spreads the high bits of the key over the table's range.
        let slots = self.words.len() / 2;
        ((key as u128 * slots as u128) >> 64) as usize
    }

    // Relaxed loads and stores: a torn slot fails the key check, and nothing else is ordered
    // by the table.
    fn load(&self, i: usize) -> (u64, u64) {
        let check = self.words[2 * i].load(Ordering::Relaxed);
        let data = self.words[2 * i + 1].load(Ordering::Relaxed);
        (check ^ data, data)
    }

    /// Asks the processor to bring `key`'s slot into the cache ahead of a probe: a hint, which
    /// changes nothing but the time the probe takes.
    #[inline(always)]
    pub(crate) fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        safe_arch::prefetch_t0(&self.words[2 * self.index(key)]);
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The entry for `key`, if stored.
    pub(crate) fn probe(&self, key: u64) -> Option<Entry> {
        let (stored_key, w) = self.load(self.index(key));
        (w != 0 && stored_key == key && w & GENERATION_MASK == self.generation)
            .then(|| unpack(key, w))
    }

    /// Whether a VCF for the side to move of the position `key` failed within `depth` fours
    /// or more.
    pub(crate) fn vcf_failed(&self, key: u64, depth: u32) -> bool {
        let known = self.vcf_fail[vcf_slot(key)].load(Ordering::Relaxed);
        known & !0xff == key & !0xff && (known & 0xff) as u32 >= depth
    }

    /// Notes that a VCF for the side to move of `key` fails within `depth` fours. One word a
    /// slot: a write from another thread replaces this one whole.
    pub(crate) fn store_vcf_fail(&self, key: u64, depth: u32) {
        self.vcf_fail[vcf_slot(key)]
            .store(key & !0xff | u64::from(depth.min(255)), Ordering::Relaxed);
    }

    /// Stores a result, keeping a deeper one for another position.
    pub(crate) fn store(&self, e: Entry) {
        let i = self.index(e.key);
        let (old_key, old) = self.load(i);
        let keep_old = old != 0
            && old & GENERATION_MASK == self.generation
            && old_key != e.key
            && unpack(old_key, old).depth > e.depth + 2;
        if !keep_old {
            let data = pack(&e) | self.generation;
            self.words[2 * i].store(e.key ^ data, Ordering::Relaxed);
            self.words[2 * i + 1].store(data, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_read_back_as_stored() {
        let mut t = Table::new(1);
        let cases = [
            (1u64, 7u32, -30_001, -1i16, Bound::Upper),
            (u64::MAX, NO_MOVE, 30_001, 120, Bound::Lower),
            (0, 0, 0, 0, Bound::Exact),
        ];
        for (key, best, score, depth, bound) in cases {
            t.clear();
            t.mark_touched();
            t.store(Entry {
                key,
                best,
                score,
                depth,
                bound,
            });
            let e = t.probe(key).expect("stored");
            assert_eq!(
                (e.best, e.score, e.depth, e.bound),
                (best, score, depth, bound)
            );
            assert!(t.probe(key ^ 1).is_none(), "another key misses");
        }
    }

    #[test]
    fn a_slot_written_half_by_one_entry_and_half_by_another_is_a_miss() {
        let t = Table::new(1);
        let a = Entry {
            key: 0x1234_5678_9abc_def0,
            best: 3,
            score: 10,
            depth: 4,
            bound: Bound::Exact,
        };
        let b = Entry { best: 9, ..a };
        t.store(a);
        // What a second thread storing `b` leaves if it is seen halfway: `b`'s entry word
        // beside `a`'s check word.
        let i = t.index(a.key);
        t.words[2 * i + 1].store(pack(&b), Ordering::Relaxed);
        assert!(t.probe(a.key).is_none(), "a torn slot is not read");
        t.store(b);
        assert_eq!(t.probe(a.key).expect("whole again").best, 9);
    }

    #[test]
    fn failed_vcfs_are_known_to_their_depth_until_cleared() {
        let mut t = Table::new(1);
        let key = 0xdead_beef_0000_1234;
        assert!(!t.vcf_failed(key, 1));
        t.mark_touched();
        t.store_vcf_fail(key, 12);
        assert!(t.vcf_failed(key, 12) && t.vcf_failed(key, 3));
        assert!(!t.vcf_failed(key, 13), "a deeper look is not known to fail");
        assert!(!t.vcf_failed(key ^ 0x100, 1), "another position");
        t.clear();
        assert!(!t.vcf_failed(key, 1));
    }

    #[test]
    fn a_clear_after_a_marked_search_forgets_and_one_before_any_keeps_nothing_to_forget() {
        let mut t = Table::new(1);
        let e = Entry {
            key: 42,
            best: 1,
            score: 5,
            depth: 3,
            bound: Bound::Exact,
        };
        t.mark_touched();
        t.store(e);
        t.store_vcf_fail(42, 4);
        t.clear();
        assert!(t.probe(42).is_none() && !t.vcf_failed(42, 1), "cleared");
        // Unmarked since that clear: a store here stands for a search that never marked the
        // table, which the engine does not do; it shows the clear skipped, nothing more.
        t.store(e);
        t.clear();
        assert!(
            t.probe(42).is_some(),
            "an unmarked table is not zeroed again"
        );
        t.mark_touched();
        t.clear();
        assert!(t.probe(42).is_none());
    }

    #[test]
    fn every_clear_forgets_through_the_generations_wrapping_round() {
        let mut t = Table::new(1);
        for round in 0..70u64 {
            let e = Entry {
                key: 1000 + round,
                best: round as u32,
                score: 5,
                depth: 100,
                bound: Bound::Exact,
            };
            t.mark_touched();
            t.store(e);
            assert_eq!(
                t.probe(e.key).expect("stored this round").best,
                round as u32
            );
            t.clear();
            assert!(t.probe(e.key).is_none(), "round {round}: cleared");
            // A deep entry of an earlier generation does not keep its slot from a shallow entry
            // of another position (the next key: the same slot).
            let shallow = Entry {
                key: e.key + 1,
                depth: 0,
                ..e
            };
            assert_eq!(t.index(shallow.key), t.index(e.key));
            t.mark_touched();
            t.store(shallow);
            assert!(
                t.probe(shallow.key).is_some(),
                "round {round}: a stale slot is free"
            );
            t.clear();
        }
    }

    #[test]
    fn sizes_past_the_address_space_are_errors() {
        assert_eq!(
            Table::try_new(usize::MAX).expect_err("past the address space"),
            TableSizeError { mb: usize::MAX }
        );
        assert!(Table::try_new(1).is_ok());
    }
}
