//! The cached completed tasks: results that allocate nothing when a call completes synchronously.
//!
//! .NET keeps a few `Task` objects ready-made (`Task.CompletedTask`, `Task<bool>` for `true`
//! and `false`, `Task<int>` for -1 through 8, and the default value of small primitive
//! types), so that an `async` method finishing synchronously with one of those results
//! returns the shared object instead of allocating. This module is the same table:
//!
//! | result type | cached values |
//! |---|---|
//! | `()` | the one value |
//! | `bool` | `true`, `false` |
//! | `i32` | -1 through 8 |
//! | other primitive integers | `0` |
//!
//! The macro asks for the table only when the declared return type is one of these types
//! (resolved by rustc, so aliases count); a generic return type `T` is never cached, even when
//! a caller instantiates it with `i32`, as in .NET's shared generic code.

use std::ptr::NonNull;

/// A completed task that every call producing the same small result shares.
pub struct CachedResult<T: 'static> {
    value: T,
}

impl<T: Copy + 'static> CachedResult<T> {
    const fn new(value: T) -> Self {
        CachedResult { value }
    }
}

/// A task's pointer to its cached completed task.
///
/// The table's result types are `'static` and `Copy`, but a `Task<T>` is generic over any
/// `T` (including borrowed results): the pointer is made only for a `T: Cacheable`
/// ([`CachedRef::new`]), which lets [`CachedRef::value`] copy the value without the bound.
#[doc(hidden)]
pub struct CachedRef<T> {
    cell: NonNull<T>,
}

// SAFETY: the cell is an immutable static of a `Send + Sync` type (see `Cacheable`).
unsafe impl<T> Send for CachedRef<T> {}
unsafe impl<T> Sync for CachedRef<T> {}

impl<T> Clone for CachedRef<T> {
    fn clone(&self) -> Self {
        CachedRef { cell: self.cell }
    }
}

impl<T> CachedRef<T> {
    /// The cached value; every awaiter gets a copy.
    #[inline]
    pub(crate) fn value(&self) -> T {
        // SAFETY: `cell` points to the value of a static `CachedResult<T>` of a `Cacheable`
        // (hence `Copy`) `T` (`CachedRef::new`): a bitwise copy is a valid copy.
        unsafe { self.cell.as_ptr().read() }
    }
}

impl<T: Cacheable> CachedRef<T> {
    fn new(cell: &'static CachedResult<T>) -> Self {
        CachedRef { cell: NonNull::from(&cell.value) }
    }
}

/// A result type with a table of cached completed tasks.
pub trait Cacheable: Copy + Send + Sync + 'static {
    /// The shared completed task for `value`, or `value` back when it has none.
    fn cached(value: Self) -> Result<&'static CachedResult<Self>, Self>;
}

impl Cacheable for () {
    fn cached(value: ()) -> Result<&'static CachedResult<()>, ()> {
        static UNIT: CachedResult<()> = CachedResult::new(());
        let () = value;
        Ok(&UNIT)
    }
}

impl Cacheable for bool {
    fn cached(value: bool) -> Result<&'static CachedResult<bool>, bool> {
        static TRUE: CachedResult<bool> = CachedResult::new(true);
        static FALSE: CachedResult<bool> = CachedResult::new(false);
        Ok(if value { &TRUE } else { &FALSE })
    }
}

impl Cacheable for i32 {
    fn cached(value: i32) -> Result<&'static CachedResult<i32>, i32> {
        const LOWEST: i32 = -1;
        static SMALL: [CachedResult<i32>; 10] = {
            let mut table = [const { CachedResult::new(0) }; 10];
            let mut index = 0;
            while index < table.len() {
                table[index] = CachedResult::new(LOWEST + index as i32);
                index += 1;
            }
            table
        };
        // Checked: `i32::MAX - LOWEST` overflows, and a result is never a reason to panic.
        match value.checked_sub(LOWEST).and_then(|offset| usize::try_from(offset).ok()) {
            Some(index) if index < SMALL.len() => Ok(&SMALL[index]),
            _ => Err(value),
        }
    }
}

macro_rules! cache_default_only {
    ($($int:ty),*) => {$(
        impl Cacheable for $int {
            #[inline]
            fn cached(value: $int) -> Result<&'static CachedResult<$int>, $int> {
                static ZERO: CachedResult<$int> = CachedResult::new(0);
                if value == 0 { Ok(&ZERO) } else { Err(value) }
            }
        }
    )*};
}

cache_default_only!(i8, i16, i64, i128, isize, u8, u16, u32, u64, u128, usize);

/// Which results of one function are served from the cache: the macro picks [`Table`] or
/// [`NoTable`] with [`crate::__private::CacheProbe`] from the function's declared return
/// type. A type rather than a value, so that the builder's check is a comparison inlined
/// into it (for a `u64`, `value == 0`), not a call through a pointer on every completion.
pub trait CachePolicy<T>: Copy {
    /// The cached task for `value`, or `value` back.
    #[doc(hidden)]
    fn lookup(self, value: T) -> Result<CachedRef<T>, T>;
}

/// Results of this type are looked up in its table.
#[derive(Clone, Copy, Debug)]
pub struct Table;

/// No result of this type is cached.
#[derive(Clone, Copy, Debug)]
pub struct NoTable;

impl<T: Cacheable> CachePolicy<T> for Table {
    #[inline(always)]
    fn lookup(self, value: T) -> Result<CachedRef<T>, T> {
        T::cached(value).map(CachedRef::new)
    }
}

impl<T> CachePolicy<T> for NoTable {
    #[inline(always)]
    fn lookup(self, value: T) -> Result<CachedRef<T>, T> {
        Err(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_int_table_matches_dotnet_range() {
        for value in -1..=8 {
            let cached = i32::cached(value).unwrap_or_else(|_| panic!("{value} is cached"));
            assert_eq!(cached.value, value);
        }
        assert!(i32::cached(-2).is_err());
        assert!(i32::cached(9).is_err());
        assert!(i32::cached(i32::MIN).is_err());
        assert!(i32::cached(i32::MAX).is_err());
    }

    #[test]
    fn same_value_shares_one_task() {
        let a = i32::cached(3).ok().unwrap();
        let b = i32::cached(3).ok().unwrap();
        assert!(std::ptr::eq(a, b));
        assert!(std::ptr::eq(bool::cached(true).ok().unwrap(), bool::cached(true).ok().unwrap()));
    }

    #[test]
    fn other_integers_cache_only_their_default() {
        assert!(u64::cached(0).is_ok());
        assert!(u64::cached(1).is_err());
        assert!(u8::cached(0).is_ok());
        assert!(i64::cached(-1).is_err() && i64::cached(8).is_err());
        assert!(u32::cached(u32::MAX).is_err());
    }
}
