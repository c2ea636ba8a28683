//! The lowering records, read from the emitted object (I1).
//!
//! Every annotated function leaves a `static __LOWERING_RECORD: lowering::LoweringRecord` in
//! the object. Its bytes are read where the linker would find them: the field layout comes
//! from the object's DWARF (rustc reorders fields), the strings from the relocations that
//! point the `&str` fields at their bytes. Nothing is taken from the source or from a
//! configuration, so a stale or mis-configured build cannot pass as the other lowering.

use object::{Object, ObjectSection, ObjectSymbol, RelocationTarget};
use serde::{Deserialize, Serialize};

use crate::dwarf::Types;
use crate::error::{Context, Error, Result};

/// The runtime crate, whose `LoweringRecord` the records are and whose generic code is the
/// lowering's machinery.
pub const RUNTIME_CRATE: &str = "lowering";
const RECORD_TYPE: &str = "lowering::record::LoweringRecord";
const LOWERING_TYPE: &str = "lowering::record::Lowering";
const RECORD_STATIC: &str = "::__LOWERING_RECORD";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Record {
    /// `classic` or `runtime`, as the artifact says.
    pub lowering: String,
    pub module: String,
    pub function: String,
    pub generated_type: Option<String>,
    pub value_task: bool,
    pub file: String,
    pub line: u32,
}

impl Record {
    /// `module::function`: the path every symbol of the function starts with.
    pub fn path(&self) -> String {
        format!("{}::{}", self.module, self.function)
    }
}

/// Every record in `file`, in symbol order.
pub fn read(file: &object::File<'_>, types: &Types) -> Result<Vec<Record>> {
    // A crate with no annotated function has no record and needs no record layout (its
    // object may have no DWARF at all).
    let is_record = |symbol: object::Symbol<'_, '_>| {
        symbol.name().is_ok_and(|name| format!("{:#}", rustc_demangle::demangle(name)).ends_with(RECORD_STATIC))
    };
    if !file.symbols().any(is_record) {
        return Ok(Vec::new());
    }
    let layout = Layout::from_dwarf(types)?;
    let mut records = Vec::new();
    for symbol in file.symbols() {
        let Ok(name) = symbol.name() else { continue };
        let demangled = format!("{:#}", rustc_demangle::demangle(name));
        if !demangled.ends_with(RECORD_STATIC) {
            continue;
        }
        let section_index = symbol.section_index().context(|| format!("record {demangled} has no section"))?;
        let section = file.section_by_index(section_index).context(|| format!("section of {demangled}"))?;
        records.push(layout.read(file, &section, symbol.address()).context(|| format!("reading {demangled}"))?);
    }
    Ok(records)
}

/// Where each field of a `LoweringRecord` lives, from DWARF.
struct Layout {
    size: u64,
    lowering: u64,
    module: u64,
    function: u64,
    generated_type: u64,
    value_task: u64,
    file: u64,
    line: u64,
    /// Offsets of the pointer and the length inside a `&str`.
    str_ptr: u64,
    str_len: u64,
    /// Enumerator values of `Lowering`: (value, name in lower case).
    lowerings: Vec<(u64, String)>,
}

impl Layout {
    fn from_dwarf(types: &Types) -> Result<Layout> {
        let record = types.get(RECORD_TYPE).context(|| format!("no `{RECORD_TYPE}` in the object's DWARF"))?;
        let field = |name: &str| {
            record
                .members
                .iter()
                .find(|(member, _)| member == name)
                .map(|(_, offset)| *offset)
                .context(|| format!("`{RECORD_TYPE}` has no field `{name}` (has the runtime changed?)"))
        };
        let str_type = types.get("&str").context(|| "no `&str` in the object's DWARF")?;
        let str_field = |name: &str| {
            str_type
                .members
                .iter()
                .find(|(member, _)| member == name)
                .map(|(_, offset)| *offset)
                .context(|| format!("`&str` has no `{name}`"))
        };
        let lowering = types.get(LOWERING_TYPE).context(|| format!("no `{LOWERING_TYPE}` in the object's DWARF"))?;
        Ok(Layout {
            size: record.size,
            lowering: field("lowering")?,
            module: field("module")?,
            function: field("function")?,
            generated_type: field("generated_type")?,
            value_task: field("value_task")?,
            file: field("file")?,
            line: field("line")?,
            str_ptr: str_field("data_ptr")?,
            str_len: str_field("length")?,
            lowerings: lowering.enumerators.iter().map(|(name, value)| (*value, name.to_lowercase())).collect(),
        })
    }

    fn read(&self, file: &object::File<'_>, section: &object::Section<'_, '_>, at: u64) -> Result<Record> {
        let data = section.data().context(|| "section data")?;
        let bytes = usize::try_from(at)
            .ok()
            .and_then(|start| data.get(start..start + self.size as usize))
            .context(|| "the record lies outside its section")?;
        let word = |offset: u64, width: usize| -> Result<u64> {
            let field = bytes.get(offset as usize..offset as usize + width).context(|| "field outside the record")?;
            let mut buffer = [0u8; 8];
            if file.is_little_endian() {
                buffer[..width].copy_from_slice(field);
                Ok(u64::from_le_bytes(buffer))
            } else {
                buffer[8 - width..].copy_from_slice(field);
                Ok(u64::from_be_bytes(buffer))
            }
        };
        // A `&str` is a relocated pointer plus an inline length; `Option<&str>` is `None`
        // when its pointer is null, which in an object means: no relocation there.
        let string = |offset: u64| -> Result<Option<String>> {
            let pointer_at = at + offset + self.str_ptr;
            let Some((target, addend)) = relocation_at(section, pointer_at) else {
                return Ok(None);
            };
            let length = word(offset + self.str_len, 8)? as usize;
            let (target_section, base) = match target {
                RelocationTarget::Symbol(index) => {
                    let symbol = file.symbol_by_index(index).context(|| "relocation symbol")?;
                    (symbol.section_index().context(|| "relocation symbol without a section")?, symbol.address())
                }
                RelocationTarget::Section(index) => (index, 0),
                _ => return Err(Error::new("unsupported relocation in a record")),
            };
            let target_data =
                file.section_by_index(target_section).and_then(|s| s.data()).context(|| "string section")?;
            let start = usize::try_from(base as i64 + addend).context(|| "string offset")?;
            let text = target_data.get(start..start + length).context(|| "string outside its section")?;
            Ok(Some(String::from_utf8_lossy(text).into_owned()))
        };
        let required = |offset: u64, name: &str| string(offset)?.context(|| format!("field `{name}` is not set"));

        let lowering_value = word(self.lowering, 1)?;
        let lowering = self
            .lowerings
            .iter()
            .find(|(value, _)| *value == lowering_value)
            .map(|(_, name)| name.clone())
            .context(|| format!("unknown lowering value {lowering_value}"))?;
        Ok(Record {
            lowering,
            module: required(self.module, "module")?,
            function: required(self.function, "function")?,
            generated_type: string(self.generated_type)?,
            value_task: word(self.value_task, 1)? != 0,
            file: required(self.file, "file")?,
            line: word(self.line, 4)? as u32,
        })
    }
}

/// The relocation at `offset` of `section`: its target and addend (an implicit addend is
/// read from the section, as on Mach-O).
fn relocation_at(section: &object::Section<'_, '_>, offset: u64) -> Option<(RelocationTarget, i64)> {
    section.relocations().find(|(at, _)| *at == offset).map(|(_, relocation)| {
        let mut addend = relocation.addend();
        if relocation.has_implicit_addend()
            && let Some(bytes) = section.data().ok().and_then(|data| data.get(offset as usize..offset as usize + 8))
        {
            addend += i64::from_le_bytes(bytes.try_into().unwrap_or([0; 8]));
        }
        (relocation.target(), addend)
    })
}
