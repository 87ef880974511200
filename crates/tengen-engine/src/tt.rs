//! The transposition table: what earlier searches found about a position, by Zobrist hash.

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
    pub score: i32,
    pub depth: i16,
    pub bound: Bound,
}

/// A fixed-size table, one entry per slot, deeper results kept over shallower ones.
#[derive(Debug)]
pub(crate) struct Table {
    slots: Vec<Option<Entry>>,
}

pub(crate) const NO_MOVE: u32 = u32::MAX;

impl Table {
    /// A table using about `mb` megabytes.
    pub(crate) fn new(mb: usize) -> Table {
        let n = (mb.max(1) << 20) / std::mem::size_of::<Option<Entry>>();
        Table {
            slots: vec![None; n.max(1024)],
        }
    }

    /// Forgets everything.
    pub(crate) fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = None);
    }

    fn index(&self, key: u64) -> usize {
        // Multiply-shift: spreads the high bits of the key over the table's range.
        ((key as u128 * self.slots.len() as u128) >> 64) as usize
    }

    /// The entry for `key`, if stored.
    pub(crate) fn probe(&self, key: u64) -> Option<Entry> {
        self.slots[self.index(key)].filter(|e| e.key == key)
    }

    /// Stores a result, keeping a deeper one for another position.
    pub(crate) fn store(&mut self, e: Entry) {
        let i = self.index(e.key);
        let keep_old =
            matches!(self.slots[i], Some(old) if old.key != e.key && old.depth > e.depth + 2);
        if !keep_old {
            self.slots[i] = Some(e);
        }
    }
}
