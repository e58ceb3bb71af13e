//! Large zeroed tables of atomic words (the transposition table, the VCF cache), backed by huge
//! pages where the system offers them.
//!
//! The search reads these tables at random: with ordinary 4 KiB pages nearly every probe of a
//! table of several MiB misses the TLB, and the page walk stalls the probe (and the prefetch
//! before it). On unix a table of at least [`HUGE_PAGE`] bytes is therefore mapped directly
//! (anonymous, so its pages come zeroed and only when first touched, as with `calloc`),
//! aligned to [`HUGE_PAGE`] and marked `MADV_HUGEPAGE`, so that Linux backs it with 2 MiB
//! pages when it can. The advice is only a hint: the contents are the same either way. Smaller
//! tables, and other systems, use the global allocator's zeroed allocation.

use std::ops::Deref;
use std::sync::atomic::AtomicU64;

/// Huge-page size (and the alignment of a mapped table).
pub const HUGE_PAGE: usize = 2 * 1024 * 1024;

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
}

enum Backing<T> {
    Boxed(Box<[T]>),
    #[cfg(unix)]
    Mapped {
        /// The start of the mapping (`map_len` bytes).
        map: *mut libc::c_void,
        map_len: usize,
        /// The first slot (inside the mapping, aligned to `HUGE_PAGE`).
        ptr: *const T,
        len: usize,
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
        }
    }

    /// A fresh anonymous mapping for `len` slots, huge-page aligned and advised; `None` for a
    /// table under a huge page or when the mapping fails (the caller falls back to the heap).
    #[cfg(unix)]
    fn mapped(len: usize) -> Option<ZeroedSlice<T>> {
        let bytes = len.checked_mul(std::mem::size_of::<T>())?;
        if bytes < HUGE_PAGE || std::mem::align_of::<T>() > HUGE_PAGE {
            return None;
        }
        // One huge page extra, so that an aligned start can be chosen inside the mapping.
        let map_len = bytes.checked_add(HUGE_PAGE)?;
        // SAFETY: an anonymous private mapping at an address of the system's choice touches
        // no existing memory; the result is checked before use.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return None;
        }
        let offset = (map as usize).next_multiple_of(HUGE_PAGE) - map as usize;
        // SAFETY: `offset < HUGE_PAGE`, so the `bytes` from `map + offset` lie inside the
        // mapping of `bytes + HUGE_PAGE`.
        let start = unsafe { map.cast::<u8>().add(offset) };
        #[cfg(target_os = "linux")]
        // SAFETY: advice on a range of our own mapping; it changes no contents. A failure (no
        // transparent huge pages) leaves ordinary pages, which is fine.
        unsafe {
            libc::madvise(start.cast(), bytes, libc::MADV_HUGEPAGE);
        }
        Some(ZeroedSlice {
            slots: Backing::Mapped {
                map,
                map_len,
                ptr: start.cast::<T>(),
                len,
            },
        })
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
            // system (`T: Zeroable`: initialised) and aligned (huge-page aligned, and
            // `align_of::<T>() <= HUGE_PAGE`); only shared references are handed out.
            Backing::Mapped { ptr, len, .. } => unsafe { std::slice::from_raw_parts(*ptr, *len) },
        }
    }
}

impl<T: Zeroable> Drop for ZeroedSlice<T> {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Backing::Mapped { map, map_len, .. } = self.slots {
            // SAFETY: the mapping is ours, and no reference into it outlives `self`.
            unsafe {
                libc::munmap(map, map_len);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn zeroed_slices_start_zero_and_keep_what_is_stored() {
        for len in [0, 1, 1000, HUGE_PAGE / 8, HUGE_PAGE / 8 * 3 + 5] {
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
        let pairs = ZeroedSlice::<[AtomicU64; 2]>::new(HUGE_PAGE / 16 * 2);
        assert_eq!(pairs.as_ptr() as usize % 16, 0);
        assert!(pairs.iter().all(|p| p[1].load(Ordering::Relaxed) == 0));
    }
}
