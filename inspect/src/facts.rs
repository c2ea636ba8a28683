//! The facts: gathered once from the builds (records, MIR, LLVM IR, object symbols, DWARF,
//! expansions, stacks), attributed to functions and variants, cached, and rendered twice
//! (table and JSON) by `report`.
//!
//! The cache (`<target>/lowering-inspect/facts.json`) is keyed by the artifacts it was read
//! from (size and modification time of the object, the rlib and the stacks executables)
//! and by `inspect`'s own executable, so cargo's freshness decides when facts are gathered
//! again.

use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::attribute::{self, Attributor};
use crate::builds::{self, Emitted, Package, Profile};
use crate::error::{Context, Error, Result};
use crate::mir::{self, Body, Counts, Role};
use crate::panics::{self, Errors, Reports};
use crate::records::{self, Record};
use crate::stacks::{self, FrameKinds, Stacks};
use crate::{dwarf, expansion, instantiated, llvm_ir, replays, symbols};

/// Bumped when the facts' shape changes, so that an old cache is not read.
const FACTS_VERSION: u32 = 3;
/// The D2 depths the stacks example records.
pub const RECURSION_DEPTHS: [u64; 3] = [0, 3, 10];

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Facts {
    pub krate: CrateFacts,
    /// One per lowering record, in the object's order.
    pub functions: Vec<FunctionFacts>,
    /// By variant name (`classic`, `runtime`).
    pub variants: BTreeMap<String, VariantFacts>,
    /// By build (`debug`, `release`); `None` when the package has no stacks example.
    pub diagnostics: Option<BTreeMap<String, Diagnostics>>,
    pub files: Files,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CrateFacts {
    pub package: String,
    pub name: String,
    pub manifest_path: PathBuf,
    /// CPU time of the inspected crate's own rustc (not its dependencies), or its wall time
    /// where the system gives no CPU time (`build_clock`).
    pub build_ms: u64,
    /// What `build_ms` (and each variant's) measures: `CPU` or `wall`.
    #[serde(default = "cpu_clock")]
    pub build_clock: String,
    pub object_text_bytes: u64,
    pub rlib_text_bytes: u64,
    pub rlib_file_bytes: u64,
    /// `.text` of the object that belongs to no annotated function (host code: checks,
    /// instantiations, executors, non-generic runtime code).
    pub unattributed_text_bytes: u64,
}

/// Where the dumps come from.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Files {
    pub mir: PathBuf,
    pub llvm_ir: PathBuf,
    pub asm: PathBuf,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FunctionFacts {
    pub record: Record,
    /// The side of the comparison: the `classic`/`runtime` module the function is in
    /// (`lowering::both!`), or else its lowering.
    pub variant: String,
    /// What the MIR's shape says the lowering is: a `move_next` over the generated type
    /// (classic), a coroutine body (runtime), or `unknown`.
    pub shape: String,
    pub mir: Counts,
    pub mir_bodies: Vec<MirBody>,
    pub llvm_ir: Vec<IrFunction>,
    pub native: Vec<NativeSymbol>,
    /// All bytes (code and data) the function's symbols occupy in the rlib's objects.
    pub rlib_bytes: u64,
    /// Size of the classic state machine, or of the future the runtime function returns.
    pub state_bytes: Option<u64>,
    /// Size of the heap block a suspended classic call lives in (task header, state
    /// machine, result slot); none for runtime.
    pub task_bytes: Option<u64>,
    pub expanded_lines: Option<u64>,
    /// Functions LLVM merged this function's code into (identical code folded into one
    /// symbol, counted there).
    pub merged_into: Vec<String>,
    /// What became of code the artifact does not show under the function's own name
    /// (merged into an identical function, never instantiated), when there is such code.
    pub note: Option<String>,
}

impl FunctionFacts {
    pub fn ir_instructions(&self) -> u64 {
        self.llvm_ir.iter().map(|function| function.instructions).sum()
    }

    pub fn native_bytes(&self) -> u64 {
        self.native.iter().filter(|symbol| symbol.code).map(|symbol| symbol.bytes).sum()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MirBody {
    pub role: Role,
    pub inner: String,
    pub counts: Counts,
    pub lines: (usize, usize),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct IrFunction {
    pub role: Role,
    pub symbol: String,
    pub name: String,
    pub instructions: u64,
    /// `]` lines closing a multi-line `switch` (see `llvm_ir`).
    #[serde(default)]
    pub switch_closers: u64,
    pub lines: (usize, usize),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NativeSymbol {
    pub role: Role,
    pub name: String,
    pub bytes: u64,
    pub code: bool,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct VariantFacts {
    pub functions: u64,
    pub generated_types: u64,
    pub coroutine_bodies: u64,
    pub text_bytes: u64,
    pub rlib_bytes: u64,
    pub expanded_lines: Option<u64>,
    /// CPU time of the crate's rustc with only this variant kept (`--cfg lowering_only`),
    /// or of the crate's own build when it holds one variant.
    pub build_ms: Option<u64>,
    /// `.text` bytes of the object that build emitted (I6 as an artifact: the runtime crate's
    /// generic code that the variant instantiated, shared by its functions, included).
    #[serde(default)]
    pub object_text_bytes: Option<u64>,
    /// Why `build_ms` is missing.
    pub build_note: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Diagnostics {
    pub stacks: Stacks,
    pub panics: Reports,
    pub errors: Errors,
}

/// Build what is needed and gather the facts, or read them from the cache when the
/// artifacts have not changed. Returns the inspected build's files with them.
pub fn gather(package: &Package) -> Result<(Emitted, Facts)> {
    let (emitted, early) =
        builds::emit(package, |record, flags| replays::Early::watch(record, flags, package.inspect_dir.clone()))?;
    let examples = if let Some(release) = &emitted.stacks_example {
        vec![(Profile::Debug, builds::build_debug_stacks_example(package)?), (Profile::Release, release.clone())]
    } else {
        eprintln!("inspect: {} has no `{}` example: no diagnostics (D1-D4)", package.name, builds::STACKS_EXAMPLE);
        Vec::new()
    };

    let key = cache_key(&emitted, &examples);
    let cache = package.inspect_dir.join("facts.json");
    if let Some(facts) = read_cache(&cache, &key) {
        eprintln!("inspect: artifacts unchanged, facts from {}", cache.display());
        drop(early.finish());
        return Ok((emitted, facts));
    }
    let facts = gather_fresh(package, &emitted, &examples, early)?;
    let cached = CacheFile { key, facts };
    if let Ok(json) = serde_json::to_string(&cached) {
        // A cache that cannot be written only costs time on the next run.
        let _ = std::fs::write(&cache, json);
    }
    Ok((emitted, cached.facts))
}

#[derive(Serialize, Deserialize)]
struct CacheFile {
    key: String,
    facts: Facts,
}

fn read_cache(path: &Path, key: &str) -> Option<Facts> {
    let text = std::fs::read_to_string(path).ok()?;
    let cached: CacheFile = serde_json::from_str(&text).ok()?;
    (cached.key == key).then_some(cached.facts)
}

fn cache_key(emitted: &Emitted, examples: &[(Profile, PathBuf)]) -> String {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    FACTS_VERSION.hash(&mut hasher);
    let mut paths = vec![emitted.object.clone(), emitted.rlib.clone()];
    paths.extend(examples.iter().map(|(_, path)| path.clone()));
    paths.extend(std::env::current_exe().ok());
    for path in paths {
        path.hash(&mut hasher);
        if let Ok(metadata) = std::fs::metadata(&path) {
            metadata.len().hash(&mut hasher);
            metadata.modified().ok().hash(&mut hasher);
        }
    }
    format!("{:016x}", hasher.finish())
}

fn read_file(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).context(|| format!("reading {}", path.display()))
}

fn gather_fresh(
    package: &Package,
    emitted: &Emitted,
    examples: &[(Profile, PathBuf)],
    early: replays::Early,
) -> Result<Facts> {
    eprintln!("inspect: reading the artifacts of {}", package.name);
    let object_data = read_file(&emitted.object)?;
    let object = object::File::parse(&*object_data).context(|| format!("parsing {}", emitted.object.display()))?;
    let types = dwarf::read_types(&object).context(|| format!("reading DWARF of {}", emitted.object.display()))?;
    let records = records::read(&object, &types)?;
    if records.is_empty() {
        return Err(Error::new(format!(
            "{} has no lowering records: no function in it carries #[lowering(..)]",
            package.name
        )));
    }
    let mir_text = String::from_utf8(read_file(&emitted.mir)?).context(|| "the MIR is not UTF-8")?;
    let bodies = mir::bodies(&mir_text, &records);
    drop(mir_text);
    let attributor = Attributor::new(&package.crate_name, &records, &bodies);

    let ir_text = String::from_utf8(read_file(&emitted.llvm_ir)?).context(|| "the LLVM IR is not UTF-8")?;
    let definitions = llvm_ir::definitions(&ir_text);
    let aliases = llvm_ir::aliases(&ir_text);
    let entries = instantiated::entries(&ir_text);
    drop(ir_text);

    let object_symbols = symbols::read_object(&object);
    let rlib_data = read_file(&emitted.rlib)?;
    let rlib_symbols = symbols::read_rlib(&rlib_data)?;

    let mut functions: Vec<FunctionFacts> = records
        .iter()
        .map(|record| FunctionFacts {
            record: record.clone(),
            variant: variant_of(record),
            shape: "unknown".to_owned(),
            mir: Counts::default(),
            mir_bodies: Vec::new(),
            llvm_ir: Vec::new(),
            native: Vec::new(),
            rlib_bytes: 0,
            state_bytes: None,
            task_bytes: None,
            expanded_lines: None,
            merged_into: Vec::new(),
            note: None,
        })
        .collect();

    for body in &bodies {
        let function = &mut functions[body.record];
        if body.role != Role::Record {
            function.mir += body.counts;
        }
        function.mir_bodies.push(MirBody {
            role: body.role,
            inner: body.inner.clone(),
            counts: body.counts,
            lines: body.lines,
        });
    }
    for (index, function) in functions.iter_mut().enumerate() {
        function.shape = shape_of(&function.record, bodies.iter().filter(|body| body.record == index));
    }
    for definition in definitions {
        if let Some((record, role)) = attributor.attribute(&definition.name)
            && role != Role::Record
        {
            functions[record].llvm_ir.push(IrFunction {
                role,
                symbol: definition.symbol,
                name: definition.name,
                instructions: definition.instructions,
                switch_closers: definition.switch_closers,
                lines: definition.lines,
            });
        }
    }
    // An alias has no code of its own: the object gives it its target's size, so counting
    // it would count the target's bytes twice (once at each name).
    let alias_targets: HashMap<String, String> = aliases.iter().cloned().collect();
    let alias_names: std::collections::HashSet<String> = alias_targets.keys().cloned().collect();
    for (alias, target) in aliases {
        if let Some((record, role)) = attributor.attribute(&alias)
            && role != Role::Record
        {
            functions[record].merged_into.push(target);
        }
    }
    let mut attributed_text = 0;
    for symbol in object_symbols.symbols {
        if alias_names.contains(&symbol.name) {
            continue;
        }
        if let Some((record, role)) = attributor.attribute(&symbol.name) {
            if symbol.code {
                attributed_text += symbol.bytes;
            }
            if role != Role::Record {
                functions[record].native.push(NativeSymbol {
                    role,
                    name: symbol.name,
                    bytes: symbol.bytes,
                    code: symbol.code,
                });
            }
        }
    }
    for symbol in &rlib_symbols.symbols {
        if let Some((record, _)) = attributor.attribute(&symbol.name) {
            functions[record].rlib_bytes += symbol.bytes;
        }
    }
    sizes_from_dwarf(&mut functions, &types, &attributor);
    explain_missing_code(&mut functions, &entries, &attributor, &alias_targets);

    let names: Vec<String> = {
        let mut names: Vec<String> = records.iter().map(|record| record.function.clone()).collect();
        names.sort();
        names.dedup();
        names
    };
    // The expansions and the one-variant builds replay the recorded rustc command: started
    // while the crate compiled, or now if it was not compiled by this run.
    let several_variants = functions.iter().any(|f| f.variant != functions[0].variant);
    let replays =
        early.finish().unwrap_or_else(|| replays::run(&emitted.rustc, &package.inspect_dir, several_variants));
    let mut expansions = replays.expansions?;
    expansions.retain(|expansion| names.contains(&expansion.function));
    let mut variant_build_ms = BTreeMap::new();
    if several_variants {
        for (variant, outcome) in replays.variants {
            variant_build_ms.insert(variant, outcome?);
        }
    }
    for expansion in &expansions {
        let mut matching = functions.iter_mut().filter(|function| {
            function.record.function == expansion.function && function.record.lowering == expansion.lowering
        });
        // Per function only where the name and lowering say which function it was.
        if let (Some(function), None) = (matching.next(), matching.next()) {
            function.expanded_lines = Some(expansion.lines);
        }
    }

    let build_ms = emitted.rustc.cpu_ms.unwrap_or(emitted.rustc.build_ms);
    // One clock for every build time of the report: wall time only where this system gives
    // no CPU time, and then said so.
    let cpu = emitted.rustc.cpu_ms.is_some()
        && variant_build_ms.values().all(|build| build.as_ref().is_ok_and(|build| build.cpu) || build.is_err());
    let build_clock = if cpu { "CPU" } else { "wall" }.to_owned();
    let variants = variant_totals(&functions, &expansions, build_ms, &variant_build_ms);
    let diagnostics = if examples.is_empty() { None } else { Some(diagnose(package, examples, &records)?) };

    Ok(Facts {
        krate: CrateFacts {
            package: package.name.clone(),
            name: package.crate_name.clone(),
            manifest_path: package.manifest_path.clone(),
            build_ms,
            build_clock,
            object_text_bytes: object_symbols.text_bytes,
            rlib_text_bytes: rlib_symbols.text_bytes,
            rlib_file_bytes: rlib_data.len() as u64,
            unattributed_text_bytes: object_symbols.text_bytes.saturating_sub(attributed_text),
        },
        functions,
        variants,
        diagnostics,
        files: Files { mir: emitted.mir.clone(), llvm_ir: emitted.llvm_ir.clone(), asm: emitted.asm.clone() },
    })
}

/// `classic` or `runtime` when the function sits in a module of that name (`both!`),
/// otherwise its lowering.
fn variant_of(record: &Record) -> String {
    match record.module.rsplit("::").next() {
        Some(last @ ("classic" | "runtime")) => last.to_owned(),
        _ => record.lowering.clone(),
    }
}

fn shape_of<'a>(record: &Record, bodies: impl Iterator<Item = &'a Body>) -> String {
    let bodies: Vec<&Body> = bodies.collect();
    let stub = bodies.iter().find(|body| body.role == Role::Stub);
    let classic = record.generated_type.is_some()
        && bodies.iter().any(|body| body.role == Role::MoveNext)
        && stub.is_some_and(|stub| mir::returns_task(&stub.signature));
    let runtime = bodies.iter().any(|body| body.role == Role::Coroutine)
        && stub.is_some_and(|stub| mir::returns_async_body(&stub.signature));
    match (classic, runtime) {
        (true, false) => "classic",
        (false, true) => "runtime",
        _ => "unknown",
    }
    .to_owned()
}

/// A note for every function whose stub or body has no symbol of its own: the entry
/// `entry_points` stored for it names the function LLVM merged it into (see
/// `instantiated`); without an entry, nothing in the crate instantiates it.
fn explain_missing_code(
    functions: &mut [FunctionFacts],
    entries: &[instantiated::Entry],
    attributor: &Attributor,
    alias_targets: &HashMap<String, String>,
) {
    let by_variant = |functions: &[FunctionFacts], record: usize| {
        let function = &functions[record];
        (function.variant.clone(), function.record.function.clone())
    };
    let mut notes: Vec<(usize, String)> = Vec::new();
    for (index, function) in functions.iter().enumerate() {
        let own = |role: Role| function.native.iter().any(|symbol| symbol.code && symbol.role == role);
        let (body_role, body) = match function.shape.as_str() {
            "classic" => (Role::Poll, "its task's poll"),
            _ => (Role::Coroutine, "its coroutine body"),
        };
        let missing_stub = !own(Role::Stub);
        let missing_body = !own(body_role);
        if !missing_stub && !missing_body {
            continue;
        }
        // The entry of this function in this variant: the one whose stored addresses
        // belong to functions of this variant.
        let entry = entries.iter().find(|entry| {
            entry.function == function.record.function
                && entry
                    .addresses
                    .iter()
                    .filter_map(|address| attributor.attribute(address))
                    .any(|(record, _)| by_variant(functions, record).0 == function.variant)
        });
        let Some(entry) = entry else {
            // Name only what has no code: a stub with bytes beside "no code" would contradict
            // the native column (a library that never polls its task keeps the stub alone).
            let what = match (missing_stub, missing_body) {
                (true, true) => "no code".to_owned(),
                (true, false) => "no code for its stub".to_owned(),
                _ => format!("no code for {body}"),
            };
            notes.push((index, format!("{what}: nothing in the crate instantiates it (no entry point keeps it)")));
            continue;
        };
        let mut parts = Vec::new();
        for (position, (missing, what)) in [(missing_stub, "its stub"), (missing_body, body)].into_iter().enumerate() {
            if !missing {
                continue;
            }
            let survivor = entry
                .addresses
                .get(position)
                .and_then(|address| attributor.attribute(address).map(|(record, _)| (record, address)));
            parts.push(match survivor {
                Some((record, _)) if record != index => {
                    let (_, name) = by_variant(functions, record);
                    format!("{what} is identical to {name}'s, and LLVM merged it there (no symbol of its own left)")
                }
                Some((_, address)) => match alias_targets.get(address.as_str()) {
                    Some(target) => format!(
                        "{what} is identical to {target}, and LLVM made it an alias of it (its bytes are counted there)"
                    ),
                    None => format!("{what} is kept as {address}"),
                },
                None => format!("{what} has no symbol: its address is code outside the attributed functions"),
            });
        }
        notes.push((index, parts.join("; ")));
    }
    for (index, note) in notes {
        functions[index].note = Some(note);
    }
}

/// I7 from DWARF: the classic state machine (`module::f::FStateMachine<..>`), the runtime
/// future (`module::f::{async_fn_env#0}`), and the heap block of a suspended classic task
/// (the task's box, `lowering::task::core::Core<T, FStateMachine<..>>`). Generic functions have
/// one type per instance: the largest is kept.
fn sizes_from_dwarf(functions: &mut [FunctionFacts], types: &dwarf::Types, attributor: &Attributor) {
    // A method's types are under its impl in DWARF (`m::{impl#0}::f::..`): read once as the
    // record names them (`m::f::..`).
    let under_impls: Vec<(String, u64)> = types
        .iter()
        .filter(|(name, _)| name.contains("::{impl#"))
        .map(|(name, info)| (attribute::without_impls(name), info.size))
        .collect();
    for function in functions.iter_mut() {
        let path = function.record.path();
        let state_type = match &function.record.generated_type {
            Some(generated) => format!("{path}::{generated}"),
            None => format!("{path}::{{async_fn_env#0}}"),
        };
        function.state_bytes = types.instances(&state_type).map(|(_, info)| info.size).max();
        if function.state_bytes.is_none() {
            function.state_bytes = under_impls
                .iter()
                .filter_map(|(plain, size)| {
                    let rest = plain.strip_prefix(&state_type)?;
                    (rest.is_empty() || rest.starts_with('<')).then_some(*size)
                })
                .max();
        }
    }
    let mut task_bytes: HashMap<usize, u64> = HashMap::new();
    for (name, info) in types.iter() {
        if name.starts_with("lowering::task::core::Core<")
            && let Some(record) = attributor.first_mentioned(name)
        {
            let entry = task_bytes.entry(record).or_default();
            *entry = (*entry).max(info.size);
        }
    }
    for (record, bytes) in task_bytes {
        if functions[record].record.generated_type.is_some() {
            functions[record].task_bytes = Some(bytes);
        }
    }
}

fn variant_totals(
    functions: &[FunctionFacts],
    expansions: &[expansion::Expansion],
    build_ms: u64,
    variant_build_ms: &BTreeMap<String, std::result::Result<builds::VariantBuild, String>>,
) -> BTreeMap<String, VariantFacts> {
    let mut variants: BTreeMap<String, VariantFacts> = BTreeMap::new();
    for function in functions {
        let totals = variants.entry(function.variant.clone()).or_default();
        totals.functions += 1;
        // The record names the generated type: counting by MIR shape would drop it whenever
        // the shape is unknown, beside the column that names it.
        if function.record.generated_type.is_some() {
            totals.generated_types += 1;
        }
        totals.coroutine_bodies +=
            function.mir_bodies.iter().filter(|body| body.role == Role::Coroutine).count() as u64;
        totals.text_bytes += function.native_bytes();
        totals.rlib_bytes += function.rlib_bytes;
    }
    for expansion in expansions {
        if let Some(totals) = variants.get_mut(&expansion.lowering) {
            *totals.expanded_lines.get_or_insert(0) += expansion.lines;
        }
    }
    let only_one = variants.len() == 1;
    for (variant, totals) in variants.iter_mut() {
        match variant_build_ms.get(variant) {
            _ if only_one => totals.build_ms = Some(build_ms),
            Some(Ok(build)) => {
                totals.build_ms = Some(build.ms);
                totals.object_text_bytes = build.object_text_bytes;
            }
            Some(Err(why)) => totals.build_note = Some(why.clone()),
            None => totals.build_note = Some(format!("no one-variant build for `{variant}`")),
        }
    }
    variants
}

/// Run each stacks executable and measure D1-D4 from its output.
fn diagnose(
    package: &Package,
    examples: &[(Profile, PathBuf)],
    records: &[Record],
) -> Result<BTreeMap<String, Diagnostics>> {
    let kinds = FrameKinds::new(records, &package.workspace_root, package.runtime_dir.as_deref());
    let mut by_build = BTreeMap::new();
    for (profile, executable) in examples {
        eprintln!("inspect: running {} ({})", executable.display(), profile.name());
        let output = Command::new(executable)
            // Relative paths in the stacks (`./src/..`) then start where `file!()`'s do.
            .current_dir(&package.workspace_root)
            // The example's own stacks come from `Backtrace::force_capture`; a backtrace
            // variable would only add the default hook's output for unexpected panics.
            .env_remove("RUST_BACKTRACE")
            .output()
            .context(|| format!("running {}", executable.display()))?;
        if !output.status.success() {
            return Err(Error::new(format!(
                "{} failed ({}):\n{}",
                executable.display(),
                output.status,
                String::from_utf8_lossy(&output.stderr).trim_end()
            )));
        }
        let text = String::from_utf8_lossy(&output.stdout);
        let sections = stacks::sections(&text);
        let diagnostics = Diagnostics {
            stacks: stacks::measure(&sections, &kinds).context(|| format!("stacks of the {} build", profile.name()))?,
            panics: panics::panics(&sections, records, &kinds),
            errors: panics::errors(&sections),
        };
        by_build.insert(profile.name().to_owned(), diagnostics);
    }
    Ok(by_build)
}

fn cpu_clock() -> String {
    "CPU".to_owned()
}
