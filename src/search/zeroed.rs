//! Large zeroed tables of atomic words (the transposition table, the VCF cache), kept on
//! ordinary pages.
//!
//! On unix a table of at least [`MAP_MIN_BYTES`] (2 MiB) is mapped directly (anonymous, so
//! its pages come zeroed and only when first touched, as with `calloc`) and advised
//! `MADV_NOHUGEPAGE`, so that Linux never backs it with 2 MiB pages, whatever its
//! transparent-huge-page mode.
//!
//! Huge pages made the bench about 11 % faster when it gave every position fresh tables, most
//! of it from fewer page faults; with the tables faulted in beforehand (as the bench now does,
//! [`ZeroedSlice::fault_in`]) they were about 3 % faster (fewer TLB misses). But every first
//! touch of a 2 MiB page zeroes the whole page; on a busy machine, or a virtual machine that
//! has handed its free memory back to the host, the kernel may first have to compact memory
//! or fault in host memory. The first few hundred probes of a fresh search then touch the
//! whole table in one burst, between two of the search's clock checks: a fresh process's
//! first 1 s search, run at low priority beside two matches, took up to 2.7 s (README,
//! fourteenth session). With ordinary pages each first touch zeroes 4 KiB, so the same cost
//! is spread over the search and the clock keeps control. Smaller tables, and other systems,
//! use the global allocator's zeroed allocation.

use std::ops::Deref;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

/// Tables at least this large (one huge page) are mapped (see the module documentation).
pub const MAP_MIN_BYTES: usize = 2 * 1024 * 1024;

/// Types for which all zero bits are a valid value.
///
/// # Safety
/// Implement only for types whose all-zero bit pattern is an initialised value.
pub unsafe trait Zeroable: Sized {}

// SAFETY: an `AtomicU64` has the in-memory representation of a `u64`: zero is 0.
unsafe impl Zeroable for AtomicU64 {}
// SAFETY: an array of zeroable elements is zeroable.
unsafe impl<T: Zeroable, const N: usize> Zeroable for [T; N] {}

/// An owned slice of `len` zero-initialised `T`s (see the module documentation).
pub struct ZeroedSlice<T: Zeroable> {
    slots: Backing<T>,
    /// How many slots from the start have been faulted in ([`ZeroedSlice::fault_in`]).
    faulted_to: AtomicUsize,
}

enum Backing<T> {
    Boxed(Box<[T]>),
    #[cfg(unix)]
    Mapped {
        /// The start of the mapping: the first of `len` slots.
        ptr: *const T,
        len: usize,
        /// The mapping's length.
        bytes: usize,
    },
}

// SAFETY: a mapped table is owned memory like a `Box<[T]>`: it is as `Send` and `Sync` as `T`.
unsafe impl<T: Zeroable + Send> Send for ZeroedSlice<T> {}
// SAFETY: as above; shared access only hands out `&[T]`.
unsafe impl<T: Zeroable + Sync> Sync for ZeroedSlice<T> {}

impl<T: Zeroable> ZeroedSlice<T> {
    /// `len` zeroed slots.
    pub fn new(len: usize) -> ZeroedSlice<T> {
        #[cfg(unix)]
        if let Some(slots) = Self::mapped(len) {
            return slots;
        }
        let slots = Box::<[T]>::new_zeroed_slice(len);
        // SAFETY: `T: Zeroable`, so zeroed memory is an initialised `[T]`.
        let slots = unsafe { slots.assume_init() };
        ZeroedSlice {
            slots: Backing::Boxed(slots),
            faulted_to: AtomicUsize::new(0),
        }
    }

    /// A fresh anonymous mapping for `len` slots, advised against huge pages; `None` for a
    /// table under [`MAP_MIN_BYTES`] or when the mapping fails (the caller falls back to the
    /// heap).
    #[cfg(unix)]
    fn mapped(len: usize) -> Option<ZeroedSlice<T>> {
        let bytes = len.checked_mul(std::mem::size_of::<T>())?;
        // A mapping starts on a page boundary (at least 4 KiB).
        if bytes < MAP_MIN_BYTES || std::mem::align_of::<T>() > 4096 {
            return None;
        }
        // SAFETY: an anonymous private mapping at an address of the system's choice touches
        // no existing memory; the result is checked before use.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return None;
        }
        #[cfg(target_os = "linux")]
        // SAFETY: advice on our own mapping; it changes no contents. A failure (a kernel
        // without transparent huge pages) leaves ordinary pages, which is what is asked.
        unsafe {
            libc::madvise(map, bytes, libc::MADV_NOHUGEPAGE);
        }
        Some(ZeroedSlice {
            slots: Backing::Mapped {
                ptr: map.cast::<T>(),
                len,
                bytes,
            },
            faulted_to: AtomicUsize::new(0),
        })
    }
}

/// Slot types that start with an atomic word, through which a slot's page can be faulted in.
pub trait FirstWord {
    fn first_word(&self) -> &AtomicU64;
}

impl FirstWord for AtomicU64 {
    fn first_word(&self) -> &AtomicU64 {
        self
    }
}

impl<const N: usize> FirstWord for [AtomicU64; N] {
    fn first_word(&self) -> &AtomicU64 {
        &self[0]
    }
}

impl<T: Zeroable + FirstWord> ZeroedSlice<T> {
    /// Pages faulted in between two looks at the clock in [`ZeroedSlice::fault_in`] (1 MiB of
    /// 4 KiB pages).
    const PAGES_PER_CHUNK: usize = 256;

    /// Makes the system back the pages of the table now (one slot per 4 KiB page is written
    /// back with what it holds), so that the search that follows pays no first-touch page
    /// faults: from where an earlier call stopped, in chunks of 1 MiB, until the end or until
    /// `deadline` has passed (checked between chunks). Returns whether the whole table is now
    /// faulted in. The contents are unchanged as long as no other thread writes the table
    /// meanwhile. (Not an atomic add of zero: the compiler may turn that into a plain load,
    /// which maps the shared zero page instead of a page of the table's own.)
    pub fn fault_in(&self, deadline: Option<Instant>) -> bool {
        let per_page = (4096 / std::mem::size_of::<T>()).max(1);
        let chunk = per_page * Self::PAGES_PER_CHUNK;
        let mut from = self.faulted_to.load(Ordering::Relaxed);
        while from < self.len() {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return false;
            }
            let to = (from + chunk).min(self.len());
            for slot in self[from..to].iter().step_by(per_page) {
                let w = slot.first_word();
                w.store(w.load(Ordering::Relaxed), Ordering::Relaxed);
            }
            from = to;
            self.faulted_to.store(from, Ordering::Relaxed);
        }
        true
    }

    /// Whether the whole table has been faulted in.
    pub fn is_faulted(&self) -> bool {
        self.faulted_to.load(Ordering::Relaxed) >= self.len()
    }
}

impl<T: Zeroable> Deref for ZeroedSlice<T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        match &self.slots {
            Backing::Boxed(b) => b,
            #[cfg(unix)]
            // SAFETY: `ptr` points at `len` slots inside a live mapping of ours, zeroed by the
            // system (`T: Zeroable`: initialised) and aligned (page aligned, and
            // `align_of::<T>() <= 4096`); only shared references are handed out.
            Backing::Mapped { ptr, len, .. } => unsafe { std::slice::from_raw_parts(*ptr, *len) },
        }
    }
}

impl<T: Zeroable> Drop for ZeroedSlice<T> {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Backing::Mapped { ptr, bytes, .. } = self.slots {
            // SAFETY: the mapping is ours, and no reference into it outlives `self`.
            unsafe {
                libc::munmap(ptr.cast_mut().cast(), bytes);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeroed_slices_start_zero_and_keep_what_is_stored() {
        for len in [0, 1, 1000, MAP_MIN_BYTES / 8, MAP_MIN_BYTES / 8 * 3 + 5] {
            let s = ZeroedSlice::<AtomicU64>::new(len);
            assert_eq!(s.len(), len);
            assert!(s.iter().all(|w| w.load(Ordering::Relaxed) == 0));
            for (i, w) in s.iter().enumerate().step_by(511) {
                w.store(i as u64 + 1, Ordering::Relaxed);
            }
            for (i, w) in s.iter().enumerate() {
                let want = if i % 511 == 0 { i as u64 + 1 } else { 0 };
                assert_eq!(w.load(Ordering::Relaxed), want);
            }
        }
        let s = ZeroedSlice::<AtomicU64>::new(MAP_MIN_BYTES / 8 + 3);
        s[700].store(7, Ordering::Relaxed);
        assert!(!s.is_faulted());
        // A deadline already past faults nothing in; a later call goes on to the end.
        assert!(!s.fault_in(Some(Instant::now())));
        assert!(!s.is_faulted());
        assert!(s.fault_in(None));
        assert!(s.is_faulted());
        assert!(s
            .iter()
            .enumerate()
            .all(|(i, w)| w.load(Ordering::Relaxed) == (i == 700) as u64 * 7));
        let pairs = ZeroedSlice::<[AtomicU64; 2]>::new(MAP_MIN_BYTES / 16 * 2);
        pairs.fault_in(None);
        assert_eq!(pairs.as_ptr() as usize % 16, 0);
        assert!(pairs.iter().all(|p| p[1].load(Ordering::Relaxed) == 0));
    }

    /// The mapped table carries the "no huge pages" advice (Linux lists it as `nh` among the
    /// mapping's flags in `/proc/self/smaps`).
    #[cfg(target_os = "linux")]
    #[test]
    fn mapped_tables_are_advised_against_huge_pages() {
        let s = ZeroedSlice::<AtomicU64>::new(MAP_MIN_BYTES / 8 * 4);
        let start = format!("{:x}-", s.as_ptr() as usize);
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let region = smaps
            .split_once(&start)
            .map(|(_, rest)| rest)
            .expect("the table is a mapping of its own");
        let flags = region
            .lines()
            .find(|l| l.starts_with("VmFlags:"))
            .expect("a VmFlags line");
        assert!(flags.split_whitespace().any(|f| f == "nh"), "{flags}");
    }
}
