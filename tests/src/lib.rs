//! Cross-crate and compile tests for the lowering attribute.
