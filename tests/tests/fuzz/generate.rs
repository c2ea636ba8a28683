//! Random programs, valid by construction: every statement is generated against the
//! checker's view of what is in scope (which values can still move, which loops a `break`
//! can leave), then applied to it; a statement the checker rejects is dropped and another
//! is drawn.

use proptest::prelude::RngExt;
use proptest::test_runner::{RngAlgorithm, TestRng};

use super::ast::*;
use super::check::{self, Body, Checker};

/// Program `index` of the run with this seed: the same program every time, whatever the
/// other programs are.
pub fn program(seed: u64, index: usize) -> Program {
    program_with(seed, index, everyday())
}

/// `everyday`: also draw issue 14's shapes (unit functions ending in loops, pattern
/// parameters, `join!`, items in the body, guards that await), as every run does unless
/// `LOWERING_FUZZ_EVERYDAY=0` (the programs of runs made before those shapes existed).
pub fn program_with(seed: u64, index: usize, everyday: bool) -> Program {
    drawn(seed, index, everyday).0
}

/// Program `index` of the run with this seed, and how many programs drawn for it before it the
/// checker rejected (the generator's own misses: each is drawn again from where the stream is).
pub fn program_and_rejections(seed: u64, index: usize) -> (Program, usize) {
    drawn(seed, index, everyday())
}

fn everyday() -> bool {
    std::env::var("LOWERING_FUZZ_EVERYDAY").map_or(true, |value| value != "0")
}

fn drawn(seed: u64, index: usize, everyday: bool) -> (Program, usize) {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8..16].copy_from_slice(&(index as u64).to_le_bytes());
    let mut rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    let mut rejected = 0;
    loop {
        let mut generator = Generator::new(&mut rng);
        generator.everyday = everyday;
        generator.real_code = everyday && real_code();
        generator.macros = generator.real_code && macros();
        generator.crate_shapes = generator.macros && crate_shapes();
        generator.hinted_macros = generator.crate_shapes && hinted_macros();
        let mut program = generator.program();
        consuming_forms(&mut program);
        // Valid by construction; the check guards the generator itself.
        if check::program(&program).is_ok() {
            let mut signature = signature(seed, index, program.receiver);
            if signature == Signature::AsyncTrait
                && item_in_macro_arguments(&super::print::function(&program, "program"))
            {
                signature = Signature::GenericImpl;
            }
            return (Program { signature, ..program }, rejected);
        }
        rejected += 1;
    }
}

/// Whether to draw the shapes of macros of the user's and closures handed locals kept in
/// place (`keep!`, `deferred!`, `plain!`, `declare!`, closures that borrow, mutably borrow or
/// move, and what they make stored past the call): every run does unless
/// `LOWERING_FUZZ_MACROS=0` (the programs of runs made before them).
fn macros() -> bool {
    std::env::var("LOWERING_FUZZ_MACROS").map_or(true, |value| value != "0")
}

/// Whether to draw the shapes published crates showed the classic lowering (issue 40): a
/// struct literal's field shorthand naming a kept local, a struct update `..base` moving a
/// field out of a local, an owned temporary at the end of a method chain borrowed by an
/// awaited call. Every run does unless `LOWERING_FUZZ_CRATES=0` (the programs of runs made
/// before them).
fn crate_shapes() -> bool {
    std::env::var("LOWERING_FUZZ_CRATES").map_or(true, |value| value != "0")
}

/// Whether to draw `awaited!(..)`, a macro of the user's whose own body awaits, which the
/// classic variant is lowered with the hint `#[lowering(classic, awaits(awaited))]` for: every
/// run does unless `LOWERING_FUZZ_HINTS=0` (the programs of runs made before it).
fn hinted_macros() -> bool {
    std::env::var("LOWERING_FUZZ_HINTS").map_or(true, |value| value != "0")
}

/// Whether to draw issue 26's shapes, the bodies real crates have (`let .. else`, tracing's
/// macros, consuming methods, temporaries held across awaits, methods calling each other on
/// `self`): every run does unless `LOWERING_FUZZ_REAL_CODE=0` (the programs of runs made
/// before them, whose random draws these shapes would change).
fn real_code() -> bool {
    std::env::var("LOWERING_FUZZ_REAL_CODE").map_or(true, |value| value != "0")
}

/// The signature of a program, from a stream of its own: the bodies are those that runs made
/// before signatures varied drew for the same seed and index (`LOWERING_FUZZ_SIGNATURES=0`
/// writes them all plain, as those runs did).
fn signature(seed: u64, index: usize, receiver: bool) -> Signature {
    if std::env::var("LOWERING_FUZZ_SIGNATURES").is_ok_and(|value| value == "0") {
        return Signature::Plain;
    }
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8..16].copy_from_slice(&(index as u64).to_le_bytes());
    bytes[16] = b's';
    let mut rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    match rng.random_range(0..20u32) {
        0..=2 => Signature::Bounded,
        3..=5 => Signature::ImplTraitArg,
        6..=9 if receiver => Signature::GenericImpl,
        10..=13 if receiver => Signature::AsyncTrait,
        _ => Signature::Plain,
    }
}

/// Does a macro's argument list in `text` declare an item (`format!("{}", { fn f4(..) .. })`)?
/// `#[async_trait]` leaves `self` as written in the tokens of such a macro (there it could be
/// the item's own), where it then names the receiver the method moved into its future: rustc's
/// E0382 under both lowerings (seed 4807526976, program 4521). Such a body is drawn with
/// another signature.
fn item_in_macro_arguments(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(at) = text[from..].find("!(") {
        let start = from + at + 2;
        let (mut depth, mut end) = (1, start);
        while end < bytes.len() && depth > 0 {
            match bytes[end] {
                b'(' => depth += 1,
                b')' => depth -= 1,
                _ => {}
            }
            end += 1;
        }
        let arguments = &text[start..end];
        if ["fn ", "struct ", "const ", "use "].iter().any(|keyword| arguments.contains(keyword)) {
            return true;
        }
        from = start;
    }
    false
}

/// How deep expressions and blocks nest.
const MAX_EXPR_DEPTH: u32 = 3;
const MAX_BLOCK_DEPTH: u32 = 3;
const MAX_LOOP_DEPTH: u32 = 2;

struct Generator<'r> {
    rng: &'r mut TestRng,
    next: usize,
    /// What is in scope at the point being generated.
    env: Checker,
    /// Values moved by the statement being generated, not yet applied to `env`.
    moved: Vec<String>,
    /// Loop counters: never assigned, so that every loop ends.
    counters: Vec<String>,
    block_depth: u32,
    loop_depth: u32,
    /// Draw issue 14's shapes too (`program_with`).
    everyday: bool,
    /// Draw issue 26's shapes too (`real_code`).
    real_code: bool,
    /// Draw macros of the user's and closures too (`macros`).
    macros: bool,
    /// Draw the shapes published crates showed the classic lowering (`crate_shapes`).
    crate_shapes: bool,
    /// Draw a macro whose own body awaits, which the classic variant is told of by a hint
    /// (`hinted_macros`).
    hinted_macros: bool,
    /// Statements that must come right after the one just drawn, in the same block: the shape
    /// a keeper prepares, what names the locals a borrowing macro was lent (so that the macro
    /// is not their last use).
    follow_ups: Vec<Stmt>,
    /// The operands the last `terms` drew.
    operands: Vec<check::Visible>,
    /// The names borrowed across an await so far (kept in place), and the parameters: the
    /// operands the macro and closure shapes prefer.
    kept: Vec<String>,
    /// The items declared so far, whose names a later block may declare again.
    items: Vec<(String, ItemKind)>,
}

impl<'r> Generator<'r> {
    fn new(rng: &'r mut TestRng) -> Self {
        Generator {
            rng,
            next: 0,
            env: Checker::with_params(&[]),
            moved: Vec::new(),
            counters: Vec::new(),
            block_depth: 0,
            loop_depth: 0,
            everyday: false,
            real_code: false,
            macros: false,
            crate_shapes: false,
            hinted_macros: false,
            follow_ups: Vec::new(),
            operands: Vec::new(),
            kept: Vec::new(),
            items: Vec::new(),
        }
    }

    fn chance(&mut self, percent: u32) -> bool {
        self.rng.random_range(0..100) < percent
    }

    fn below(&mut self, n: usize) -> usize {
        self.rng.random_range(0..n)
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next)
    }

    fn program(&mut self) -> Program {
        let params: Vec<Param> = (0..self.below(4))
            .map(|_| {
                let name = self.fresh("p");
                let (ty, arg) = match self.below(4) {
                    0 => (Ty::Loud, Expr::NewLoud(name.clone())),
                    1 if self.chance(50) => (Ty::Res, Expr::Ok(Box::new(Expr::Lit(self.below(8) as u32)))),
                    1 => (Ty::Res, Expr::Err(name.clone())),
                    _ => (Ty::U32, Expr::Lit(self.below(8) as u32)),
                };
                let mutable = matches!(ty, Ty::U32 | Ty::Loud) && self.chance(50);
                // Pattern parameters with `_` parts (issue 14's shape).
                let shape = if !self.everyday {
                    ParamShape::Plain
                } else {
                    match self.below(10) {
                        0 if ty == Ty::Loud => ParamShape::Wild,
                        1 => ParamShape::WithWild,
                        _ => ParamShape::Plain,
                    }
                };
                Param { name, ty, mutable: mutable && shape != ParamShape::Wild, arg, shape }
            })
            .collect();
        self.env = Checker::with_params(&params);
        let receiver = self.chance(15);
        if receiver {
            self.env.declare_receiver();
        }
        let len = 2 + self.below(5);
        let unit = self.everyday && self.chance(15);
        if !unit {
            let body = self.block_with(len, &Ty::Res);
            return Program { receiver, params, unit, body, signature: Signature::Plain };
        }
        self.env.unit = true;
        let mut body = self.block_with(len, &Ty::Unit);
        // Most end in a loop that awaits (as its tail or its last statement).
        if self.chance(80) {
            let before = self.env.clone();
            let mut tail = self.loop_expr(&Ty::Unit);
            if let Expr::Loop(node) = &mut tail {
                let (note, label) = (self.fresh("n"), self.fresh("a"));
                let value = Expr::Await(Leaf::Later, label, Box::new(Expr::Lit(self.below(8) as u32)));
                node.body.stmts.push(Stmt::Expr(Expr::Note(note, Box::new(value))));
            }
            let stmt = Stmt::Expr(tail);
            match self.env.stmt(&stmt) {
                Ok(_) => {
                    let Stmt::Expr(tail) = stmt else { unreachable!() };
                    if self.chance(50) {
                        body.tail = Some(Box::new(tail));
                    } else {
                        body.stmts.push(Stmt::Expr(tail));
                    }
                }
                Err(_) => self.env = before,
            }
        }
        Program { receiver, params, unit, body, signature: Signature::Plain }
    }

    // ----- blocks and statements ----------------------------------------------------------

    /// A block of about `len` statements whose value has type `ty` (`Unit`: no tail).
    fn block_with(&mut self, len: usize, ty: &Ty) -> Block {
        self.block_depth += 1;
        let outermost = self.block_depth == 1;
        let mut stmts = Vec::new();
        // Moves pending before the block (an expression drawn outside any block, as the loop a
        // unit body ends with, is still being drawn) stay pending after each statement.
        let pending = self.moved.len();
        for _ in 0..len {
            let before = self.env.clone();
            let stmt = self.stmt();
            let follow_ups = std::mem::take(&mut self.follow_ups);
            match self.env.stmt(&stmt) {
                Ok(_) if follow_ups.is_empty() && self.env.lent_droppy.is_empty() => {
                    self.note_kept(&stmt);
                    stmts.push(stmt);
                }
                Ok(_) => {
                    // All of them, each naming what the one before lent, or none.
                    let mut run = vec![stmt];
                    let mut lent = std::mem::take(&mut self.env.lent_droppy);
                    let mut valid = true;
                    for next in follow_ups {
                        let named = names_in_stmt(&next);
                        valid &= lent.iter().all(|name| named.contains(name)) && self.env.stmt(&next).is_ok();
                        lent = std::mem::take(&mut self.env.lent_droppy);
                        run.push(next);
                    }
                    if valid && lent.is_empty() {
                        for stmt in &run {
                            self.note_kept(stmt);
                        }
                        stmts.extend(run);
                    } else {
                        self.env = before;
                    }
                }
                Err(_) => self.env = before,
            }
            // Inside a nested block, the enclosing statement's moves are still pending. (Seed
            // 88883 once drew a `fill` argument holding a block in such a loop's head: clearing
            // them all lost the buffer the `fill` had lent.)
            if outermost {
                self.moved.truncate(pending);
            }
        }
        let tail = match ty {
            Ty::Unit => None,
            ty => {
                let before = self.env.clone();
                let mut tail = self.tail(ty);
                if !self.env.tail(&tail).is_ok_and(|found| found == *ty || found == Ty::Never) {
                    self.env = before;
                    tail = simplest(ty);
                }
                Some(Box::new(tail))
            }
        };
        self.block_depth -= 1;
        Block { stmts, tail }
    }

    /// A nested block: generated in a scope of its own, against a copy of the environment
    /// (the enclosing statement applies its effects once it is complete).
    fn nested(&mut self, ty: &Ty) -> Block {
        let saved = self.env.clone();
        self.env.push_scope();
        let len = if self.block_depth >= MAX_BLOCK_DEPTH { 0 } else { self.below(3) };
        let block = self.block_with(len, ty);
        self.env = saved;
        block
    }

    fn tail(&mut self, ty: &Ty) -> Expr {
        // A tail whose temporary lives across its await, to drop where the edition says.
        if self.real_code && matches!(ty, Ty::U32 | Ty::Res) && self.chance(15) {
            let value = self.tail_temporary();
            return if *ty == Ty::Res { Expr::Ok(Box::new(value)) } else { value };
        }
        if *ty == Ty::Res && self.chance(60) {
            let value = self.expr(&Ty::U32, 2);
            return Expr::Ok(Box::new(value));
        }
        if self.chance(8) {
            return self.diverge();
        }
        self.expr(ty, 2)
    }

    fn stmt(&mut self) -> Stmt {
        if self.macros && self.chance(12) {
            return self.macro_stmt();
        }
        if self.crate_shapes && self.chance(6) {
            if let Some(stmt) = self.crate_shape() {
                return stmt;
            }
        }
        if self.real_code {
            match self.below(100) {
                0..=4 => return self.event(),
                5..=9 => return self.let_else(),
                // A temporary whose life the `let` extends, held across the awaits after it.
                10..=12 => {
                    let label = self.fresh("t");
                    let extension = self.extension();
                    return Stmt::Let(Pat::Bind(self.binding(false)), Expr::BorrowNew(label, extension));
                }
                _ => {}
            }
        }
        if self.chance(15) {
            return self.borrowing_stmt();
        }
        // An item declared in the body, which later statements use (issue 14's shape).
        if self.everyday && self.chance(4) {
            let (name, kind) = match self.below(4) {
                0 => (self.fresh("C"), ItemKind::Const(self.below(8) as u32)),
                1 => (self.fresh("f"), ItemKind::Fn),
                2 => (self.fresh("S"), ItemKind::Struct),
                _ => (self.fresh("m"), ItemKind::Use),
            };
            // Now and then the name of an earlier item, declared again: in a block beside that
            // item's (two blocks' own `f3`, of any kinds), or, of its kind, inside it, where it
            // hides the earlier one for the whole block (a constant of another value then
            // means this one, even before its declaration). The classic lowering declares cut
            // blocks' items for the whole function, under names of their own where they clash.
            let visible: Vec<String> = self.visible().into_iter().map(|var| var.name).collect();
            let earlier: Vec<String> = self
                .items
                .iter()
                .filter(|(earlier, earlier_kind)| {
                    let same_kind = std::mem::discriminant(earlier_kind) == std::mem::discriminant(&kind);
                    !self.env.declared_in_this_scope(earlier) && (same_kind || !visible.contains(earlier))
                })
                .map(|(earlier, _)| earlier.clone())
                .collect();
            let name =
                if !earlier.is_empty() && self.chance(70) { earlier[self.below(earlier.len())].clone() } else { name };
            self.items.push((name.clone(), kind));
            return Stmt::Item(name, kind);
        }
        let may_nest = self.block_depth < MAX_BLOCK_DEPTH;
        match self.below(100) {
            0..=24 => self.let_stmt(),
            25..=34 => match self.pick_assignable() {
                Some((name, ty)) => {
                    // A plain `=` on any type (moved or not); a compound one on `u32`.
                    let op = if ty == Ty::U32 && self.chance(60) {
                        [Op::Add, Op::Xor, Op::BitOr, Op::Mul][self.below(4)]
                    } else {
                        Op::Set
                    };
                    let value = self.expr(&ty, MAX_EXPR_DEPTH);
                    Stmt::Assign(name, op, value)
                }
                None => self.let_stmt(),
            },
            35..=44 => {
                let label = self.fresh("n");
                Stmt::Expr(Expr::Note(label, Box::new(self.expr(&Ty::U32, MAX_EXPR_DEPTH))))
            }
            45..=52 => Stmt::Expr(self.expr(&Ty::U32, MAX_EXPR_DEPTH)),
            53..=62 if may_nest => {
                let cond = self.expr(&Ty::Bool, 2);
                let then_branch = self.nested(&Ty::Unit);
                let else_branch = if self.chance(50) { Some(self.nested(&Ty::Unit)) } else { None };
                Stmt::Expr(Expr::If(Box::new(cond), then_branch, else_branch))
            }
            63..=70 => {
                // A jump out, taken on some runs only.
                let cond = self.expr(&Ty::Bool, 2);
                let jump = self.diverge();
                Stmt::Expr(Expr::If(Box::new(cond), Block { stmts: vec![Stmt::Expr(jump)], tail: None }, None))
            }
            71..=78 if may_nest && self.loop_depth < MAX_LOOP_DEPTH => Stmt::Expr(self.loop_expr(&Ty::Unit)),
            79..=83 if may_nest => Stmt::Expr(self.match_expr(&Ty::Unit)),
            84..=87 if may_nest => {
                if self.chance(50) {
                    Stmt::Expr(Expr::Block(self.nested(&Ty::Unit)))
                } else {
                    Stmt::Expr(self.labelled(&Ty::Unit))
                }
            }
            88..=92 => match self.pick_var(|var| var.ty == Ty::Loud && var.movable) {
                Some(name) => {
                    self.moved.push(name.clone());
                    Stmt::Expr(Expr::Call(Helper::Consume, vec![Expr::Var(name)]))
                }
                None => self.let_stmt(),
            },
            93..=94 => {
                let label = self.fresh("f");
                Stmt::Expr(Expr::Forever(label, Ty::U32))
            }
            _ => {
                let label = self.fresh("a");
                let value = self.expr(&Ty::U32, 1);
                Stmt::Expr(Expr::Await(Leaf::Later, label, Box::new(value)))
            }
        }
    }

    /// A statement of the borrowing shapes: a reference kept (`let r = &v;`), a buffer or
    /// a pair made, an awaited call that borrows a buffer mutably, a field moved out.
    fn borrowing_stmt(&mut self) -> Stmt {
        match self.below(13) {
            0 | 1 => match self.pick_var(|var| matches!(var.ty, Ty::U32 | Ty::Loud) && var.borrowable) {
                // A reference may hide another local's name (its referent's, say): once a bug,
                // `fuzz_regressions::borrowing_shapes::seed7_program221`.
                Some(name) => Stmt::Let(Pat::Bind(self.binding(false)), Expr::Borrow(name)),
                None => self.let_stmt(),
            },
            2 | 3 => {
                let label = self.fresh("b");
                Stmt::Let(
                    Pat::Bind(Binding { name: self.fresh("v"), mutable: self.chance(85), annotated: None }),
                    Expr::NewBuf(label),
                )
            }
            4 | 5 => {
                let (a, b) = (self.fresh("l"), self.fresh("l"));
                Stmt::Let(Pat::Bind(self.binding(false)), Expr::NewDuo(a, b))
            }
            6..=8 => match self.pick_field(true) {
                Some((name, first)) => {
                    let field = Expr::MoveField(name, first);
                    if self.chance(50) {
                        Stmt::Expr(Expr::Call(Helper::Consume, vec![field]))
                    } else {
                        Stmt::Let(Pat::Bind(self.binding(false)), field)
                    }
                }
                None => self.let_stmt(),
            },
            _ => match self.borrowing_u32(MAX_EXPR_DEPTH - 1) {
                Some(value) => Stmt::Expr(value),
                None => self.let_stmt(),
            },
        }
    }

    /// A pair local with a field that can move out (`moving`) or be borrowed here.
    fn pick_field(&mut self, moving: bool) -> Option<(String, bool)> {
        let moved = self.moved.clone();
        let candidates: Vec<(String, bool)> = self
            .visible()
            .into_iter()
            .filter(|var| var.ty == Ty::Duo && var.present)
            .filter(|var| !moving || (var.in_this_loop && !var.frozen))
            .flat_map(|var| [(var.name.clone(), true, var.parts & 1 == 0), (var.name, false, var.parts & 2 == 0)])
            .filter(|(name, first, free)| {
                *free && !moved.contains(&format!("{name}.{}", if *first { "a" } else { "b" }))
            })
            .map(|(name, first, _)| (name, first))
            .collect();
        let (name, first) = candidates.get(self.below(candidates.len().max(1)))?.clone();
        if moving {
            self.moved.push(format!("{name}.{}", if first { "a" } else { "b" }));
        }
        Some((name, first))
    }

    /// A `u32` from the borrowing shapes, if one applies here.
    fn borrowing_u32(&mut self, sub: u32) -> Option<Expr> {
        match self.below(10) {
            0 => self.pick_var(|var| var.ty == Ty::Ref(Box::new(Ty::U32))).map(Expr::Deref),
            1 => {
                let later = self.chance(50);
                self.pick_var(|var| var.ty == Ty::Ref(Box::new(Ty::Loud))).map(|name| Expr::WeighRef(name, later))
            }
            2 => self.pick_var(|var| var.ty == Ty::Loud && var.borrowable).map(Expr::WeighLater),
            3 | 4 => {
                let name = self.pick_var(|var| var.ty == Ty::Buf && var.mutable && var.borrowable && !var.frozen)?;
                // Borrowed mutably while its argument is evaluated: nothing there may use it.
                let at = self.moved.len();
                self.moved.push(name.clone());
                let value = Box::new(self.expr(&Ty::U32, sub));
                self.moved.remove(at);
                Some(if self.chance(50) { Expr::Fill(name, value) } else { Expr::PushLater(name, value) })
            }
            5 => self.pick_var(|var| var.ty == Ty::Buf && var.borrowable).map(Expr::Total),
            6 => self.pick_field(false).map(|(name, first)| Expr::WeighField(name, first)),
            7 => {
                let label = self.fresh("b");
                Some(Expr::FillNew(label, Box::new(self.expr(&Ty::U32, sub))))
            }
            // Also awaited as an operand (`mix(async { .. }.await, ..)`): once a bug,
            // `fuzz_regressions::borrowing_shapes::seed7_program20`.
            _ if self.block_depth < MAX_BLOCK_DEPTH => Some(self.async_block()),
            _ => None,
        }
    }

    // ----- macros of the user's and closures, handed locals kept in place -----------------

    /// Notes what `stmt` (just accepted) borrows across an await: those locals live in place.
    fn note_kept(&mut self, stmt: &Stmt) {
        if !self.macros {
            return;
        }
        // As if an await followed: a reference or closure kept by a `let` keeps its referent.
        let awaited = Expr::Await(Leaf::Later, String::new(), Box::new(Expr::Lit(0)));
        let mut found = std::collections::BTreeSet::new();
        in_place_block(&Block { stmts: vec![stmt.clone(), Stmt::Expr(awaited)], tail: None }, &mut found);
        for name in found {
            if !self.kept.contains(&name) {
                self.kept.push(name);
            }
        }
    }

    /// A statement of the macro and closure shapes.
    fn macro_stmt(&mut self) -> Stmt {
        let shape = self.below(100);
        if shape < 8 {
            if let Some(stmt) = self.keeper() {
                return stmt;
            }
        }
        self.operands.clear();
        let stmt = self.macro_shape(shape);
        // An operand kept in place first (by a statement that borrows it across an await),
        // when none of the shape's is, most of the time.
        let operands = std::mem::take(&mut self.operands);
        if operands.iter().any(|var| self.kept.contains(&var.name)) || !self.chance(70) {
            return stmt;
        }
        let keepable: Vec<String> = operands
            .into_iter()
            .filter(|var| var.borrowable && matches!(var.ty, Ty::U32 | Ty::Loud | Ty::Buf))
            .map(|var| var.name)
            .collect();
        if keepable.is_empty() {
            return stmt;
        }
        let name = keepable[self.below(keepable.len())].clone();
        match self.keeper_of(name) {
            Some(keeper) => {
                self.follow_ups.insert(0, stmt);
                keeper
            }
            None => stmt,
        }
    }

    fn macro_shape(&mut self, shape: usize) -> Stmt {
        // Not from inside an async block (`Checker::expr` says why).
        let in_async = self.env.in_async();
        let store = match shape {
            0..=29 if in_async => Some(Store::MoveClosure),
            30..=44 if in_async => Some(Store::AsyncMove),
            0..=29 => Some(Store::Keep),
            30..=44 => Some(Store::Deferred),
            45..=51 => Some(Store::MoveClosure),
            52..=56 => Some(Store::AsyncMove),
            _ => None,
        };
        if let Some(store) = store {
            return match self.store(store) {
                Some(stmt) => stmt,
                None => self.let_stmt(),
            };
        }
        let stmt = match shape {
            57..=68 => self.plain_stmt(),
            69..=78 => self.declare_stmt(),
            79..=91 if self.block_depth < MAX_BLOCK_DEPTH => self.closure_scene(),
            _ => self.bound_closure(),
        };
        stmt.unwrap_or_else(|| self.let_stmt())
    }

    /// A `u32` of the macro and closure shapes, for any operand position: `plain!(..)` of
    /// `Copy` operands (or moving a `Loud`), a closure made and called there, a bound closure
    /// called.
    fn macro_u32(&mut self) -> Option<Expr> {
        match self.below(10) {
            0..=3 => {
                let mut terms = Vec::new();
                for _ in 0..1 + self.below(2) {
                    let var = self.operand(|var| {
                        var.ty == Ty::U32
                            || var.ty == Ty::Ref(Box::new(Ty::U32))
                            || var.ty == Ty::Ref(Box::new(Ty::Loud))
                    });
                    terms.extend(var.map(|var| self.term(&var, Body::Plain)));
                }
                // Moving a `Loud` into the macro: exact at its last use.
                if self.chance(20) {
                    if let Some(var) = self.operand(|var| var.ty == Ty::Loud && var.movable) {
                        self.moved.push(var.name.clone());
                        terms.push(Expr::Call(Helper::Consume, vec![Expr::Var(var.name)]));
                    }
                }
                if terms.is_empty() {
                    return None;
                }
                Some(Expr::Plain(Box::new(self.combine(terms))))
            }
            4..=7 => {
                let kind = [ClosureKind::Shared, ClosureKind::Mutable, ClosureKind::Move][self.below(3)];
                let closure = self.closure(kind, false)?;
                Some(Expr::Apply(Box::new(closure)))
            }
            _ => self
                .pick_var(|var| {
                    matches!(var.ty, Ty::Closure(_)) && (var.mutable || var.ty != Ty::Closure(ClosureKind::Mutable))
                })
                .map(Expr::CallClosure),
        }
    }

    /// A visible variable for `wanted`, preferring those kept in place and the parameters.
    fn operand(&mut self, wanted: impl Fn(&check::Visible) -> bool) -> Option<check::Visible> {
        let moved = self.moved.clone();
        let counters = self.counters.clone();
        let candidates: Vec<check::Visible> = self
            .visible()
            .into_iter()
            .filter(|var| !var.name.contains('.') && !counters.contains(&var.name))
            .filter(|var| wanted(var) && (var.ty.is_copy() || !moved.contains(&var.name)))
            .collect();
        if candidates.is_empty() {
            return None;
        }
        let kept: Vec<usize> =
            (0..candidates.len()).filter(|&index| self.kept.contains(&candidates[index].name)).collect();
        let index = if !kept.is_empty() && self.chance(80) {
            kept[self.below(kept.len())]
        } else {
            self.below(candidates.len())
        };
        Some(candidates[index].clone())
    }

    /// What code of `body` writes for a variable: `x`, `weigh(&v)`, `b.total()`, `*r`,
    /// `weigh(r)`, `v.0`, `weigh(&v.a)` (an async body may await on a `Loud`).
    fn term(&mut self, var: &check::Visible, body: Body) -> Expr {
        let name = var.name.clone();
        match &var.ty {
            Ty::Loud if body.awaits() && self.chance(40) => Expr::WeighLater(name),
            Ty::Loud => Expr::Weigh(name),
            Ty::Buf => Expr::Total(name),
            Ty::Ref(inner) if **inner == Ty::U32 => Expr::Deref(name),
            Ty::Ref(_) => Expr::WeighRef(name, false),
            Ty::Tuple(types) => {
                let elements: Vec<usize> = (0..types.len()).filter(|&index| types[index] == Ty::U32).collect();
                Expr::LocalField(name, elements[self.below(elements.len().max(1))])
            }
            Ty::Duo => {
                let free: Vec<bool> =
                    [true, false].into_iter().filter(|first| var.parts & if *first { 1 } else { 2 } == 0).collect();
                Expr::WeighField(name, free[self.below(free.len().max(1))])
            }
            _ => Expr::Var(name),
        }
    }

    /// Terms made into one `u32`: `mix(a, b)`, `add3(a, b, c)`, `a + b`, `ev(.., a)`.
    fn combine(&mut self, mut terms: Vec<Expr>) -> Expr {
        match terms.len() {
            0 => Expr::Ev(self.fresh("e"), Box::new(Expr::Lit(self.below(8) as u32))),
            1 if self.chance(30) => Expr::Ev(self.fresh("e"), Box::new(terms.remove(0))),
            1 => terms.remove(0),
            2 if self.chance(50) => Expr::Call(Helper::Mix, terms),
            2 => {
                let op = [Op::Add, Op::Xor, Op::BitOr][self.below(3)];
                let right = terms.pop().expect("two");
                Expr::Binary(op, Box::new(terms.remove(0)), Box::new(right))
            }
            3 => Expr::Call(Helper::Add3, terms),
            _ => {
                let rest = terms.split_off(2);
                let first = self.combine(terms);
                let mut rest = rest;
                rest.insert(0, first);
                self.combine(rest)
            }
        }
    }

    /// 1 to 3 operands for `body` (distinct), as terms, with the variables they name.
    fn terms(&mut self, body: Body, most: usize) -> (Vec<Expr>, Vec<check::Visible>) {
        let mut vars: Vec<check::Visible> = Vec::new();
        for _ in 0..1 + self.below(most) {
            let taken: Vec<String> = vars.iter().map(|var| var.name.clone()).collect();
            if let Some(var) = self.operand(|var| !taken.contains(&var.name) && fits(var, body)) {
                vars.push(var);
            }
        }
        let terms = vars.clone().iter().map(|var| self.term(var, body)).collect();
        self.operands.extend(vars.iter().cloned());
        (terms, vars)
    }

    /// A statement that keeps an operand in place (borrowed across an await), for the shapes
    /// drawn after it: `note(.., weigh_later(&v).await)`, `note(.., fill(&mut b, ..).await)`,
    /// `{ let r = &x; later(..).await; note(.., *r); }`.
    fn keeper(&mut self) -> Option<Stmt> {
        let kept = self.kept.clone();
        let var = self.pick_var(|var| {
            !kept.contains(&var.name)
                && !var.name.contains('.')
                && var.borrowable
                && matches!(var.ty, Ty::U32 | Ty::Loud | Ty::Buf)
        })?;
        self.keeper_of(var)
    }

    fn keeper_of(&mut self, var: String) -> Option<Stmt> {
        let ty = self.visible().into_iter().find(|visible| visible.name == var)?.ty;
        let note = self.fresh("n");
        Some(match ty {
            Ty::Loud if self.chance(60) => Stmt::Expr(Expr::Note(note, Box::new(Expr::WeighLater(var)))),
            Ty::Buf => {
                let label = self.fresh("a");
                Stmt::Expr(Expr::Note(note, Box::new(Expr::Await(Leaf::Later, label, Box::new(Expr::Total(var))))))
            }
            _ if self.block_depth < MAX_BLOCK_DEPTH => {
                let reference = self.fresh("r");
                let label = self.fresh("a");
                let read = if ty == Ty::U32 {
                    Expr::Deref(reference.clone())
                } else {
                    Expr::WeighRef(reference.clone(), false)
                };
                Stmt::Expr(Expr::Block(Block {
                    stmts: vec![
                        Stmt::Let(
                            Pat::Bind(Binding { name: reference, mutable: false, annotated: None }),
                            Expr::Borrow(var),
                        ),
                        Stmt::Expr(Expr::Await(Leaf::Later, label, Box::new(Expr::Lit(self.below(8) as u32)))),
                        Stmt::Expr(Expr::Note(note, Box::new(read))),
                    ],
                    tail: None,
                }))
            }
            _ => return None,
        })
    }

    /// `out.push(keep! { .. })`, `pending.push(Box::pin(deferred! { .. }))`, and the visible
    /// `move` closure and `async move` block stored the same way.
    fn store(&mut self, store: Store) -> Option<Stmt> {
        let body = Body::Store(store);
        let (mut terms, _) = self.terms(body, 3);
        if terms.is_empty() {
            return None;
        }
        let mut stmts = Vec::new();
        if store.is_future() {
            // Its own `let`s and `note`s, and awaits of its own.
            if terms.len() > 1 && self.chance(50) {
                let inner = self.fresh("w");
                stmts.push(Stmt::Let(
                    Pat::Bind(Binding { name: inner.clone(), mutable: false, annotated: None }),
                    terms.remove(0),
                ));
                terms.push(Expr::Var(inner));
            }
            if terms.len() > 1 && self.chance(40) {
                let note = self.fresh("n");
                stmts.push(Stmt::Expr(Expr::Note(note, Box::new(terms.remove(0)))));
            }
            let value = self.combine(terms);
            let (leaf, label) = (self.leaf(), self.fresh("a"));
            let awaited = Expr::Await(if self.chance(70) { Leaf::Later } else { leaf }, label, Box::new(value));
            Some(Stmt::Expr(Expr::Store(store, Block { stmts, tail: Some(Box::new(awaited)) })))
        } else {
            let value = self.combine(terms);
            Some(Stmt::Expr(Expr::Store(store, Block { stmts, tail: Some(Box::new(value)) })))
        }
    }

    /// The statement after a borrowing macro lent `vars`: it names those with a logged drop.
    fn name_droppy(&mut self, vars: &[check::Visible]) -> Option<Stmt> {
        let droppy: Vec<Expr> = vars
            .iter()
            .filter(|var| matches!(var.ty, Ty::Loud | Ty::Buf))
            .map(|var| if var.ty == Ty::Loud { Expr::Weigh(var.name.clone()) } else { Expr::Total(var.name.clone()) })
            .collect();
        if droppy.is_empty() {
            return None;
        }
        let value = self.combine(droppy);
        Some(Stmt::Expr(Expr::Note(self.fresh("n"), Box::new(value))))
    }

    /// `note(.., plain!(..));` or `let v = plain!(..);`, handed what is in scope; or the same
    /// of `awaited!("a", ..)`, whose own body awaits (`hinted_macros`).
    fn plain_stmt(&mut self) -> Option<Stmt> {
        let awaited = self.hinted_macros && self.chance(35);
        let (terms, vars) = self.terms(Body::Plain, 3);
        if terms.is_empty() {
            return None;
        }
        let value = if awaited {
            let label = self.fresh("m");
            Expr::Await(Leaf::Pasted, label, Box::new(self.combine(terms)))
        } else {
            Expr::Plain(Box::new(self.combine(terms)))
        };
        let mention = self.name_droppy(&vars);
        self.follow_ups.extend(mention);
        Some(if self.chance(50) {
            Stmt::Expr(Expr::Note(self.fresh("n"), Box::new(value)))
        } else {
            Stmt::Let(Pat::Bind(self.binding(true)), value)
        })
    }

    /// `declare!(d = ..);`: the local it declares is used until the next await.
    fn declare_stmt(&mut self) -> Option<Stmt> {
        let (terms, vars) = self.terms(Body::Plain, 2);
        let value = self.combine(terms);
        let mention = self.name_droppy(&vars);
        self.follow_ups.extend(mention);
        Some(Stmt::Declare(self.fresh("d"), value))
    }

    /// A closure of `kind` (`bound` by a `let`) over what is in scope: `|| ..` borrows,
    /// `|| { x += ..; .. }` mutates, `move || ..` takes.
    fn closure(&mut self, kind: ClosureKind, bound: bool) -> Option<Closure> {
        let body = Body::Closure(kind, bound);
        let (mut terms, _) = self.terms(body, 2);
        let mut stmts = Vec::new();
        if kind == ClosureKind::Mutable {
            let counters = self.counters.clone();
            let target = self.operand(|var| {
                var.mutable
                    && !var.frozen
                    && var.present
                    && matches!(var.ty, Ty::U32 | Ty::Buf)
                    && !counters.contains(&var.name)
                    && !var.name.contains('.')
            })?;
            if target.ty == Ty::U32 {
                let op = [Op::Add, Op::Xor, Op::BitOr, Op::Set][self.below(4)];
                let value = if terms.is_empty() || self.chance(40) {
                    Expr::Lit(1 + self.below(7) as u32)
                } else {
                    terms.remove(0)
                };
                stmts.push(Stmt::Assign(target.name.clone(), op, value));
                terms.push(Expr::Var(target.name));
            } else {
                let value = if terms.is_empty() { Expr::Lit(self.below(8) as u32) } else { terms.remove(0) };
                terms.push(Expr::Put(target.name, Box::new(value)));
            }
        } else if terms.is_empty() {
            return None;
        }
        // What a `move` closure takes moves with the statement.
        if kind == ClosureKind::Move {
            for term in &terms {
                if let Expr::Weigh(name) | Expr::Total(name) = term {
                    self.moved.push(name.clone());
                }
            }
        }
        let tail = self.combine(terms);
        Some(Closure { kind, body: Block { stmts, tail: Some(Box::new(tail)) } })
    }

    /// `let f = <closure>;` (`let mut f` for a `FnMut`), called by later code as `f()`.
    fn bound_closure(&mut self) -> Option<Stmt> {
        let kind = [ClosureKind::Shared, ClosureKind::Mutable, ClosureKind::Move][self.below(3)];
        let closure = self.closure(kind, true)?;
        let name = self.fresh("f");
        Some(Stmt::Let(
            Pat::Bind(Binding { name, mutable: kind == ClosureKind::Mutable, annotated: None }),
            Expr::Closure(Box::new(closure)),
        ))
    }

    /// `{ let f = <closure>; note(.., f()); later(..).await; note(.., f()); }`: a closure that
    /// borrows (or mutably borrows, or copies) a local across an await, followed by a use or
    /// a move of that local.
    fn closure_scene(&mut self) -> Option<Stmt> {
        let kind = [ClosureKind::Shared, ClosureKind::Mutable, ClosureKind::Move][self.below(3)];
        let closure = self.closure(kind, true)?;
        let mut named: Vec<String> = Vec::new();
        visit_block(&closure.body, &mut |node| {
            if let Node::Expr(expr) = node {
                named.extend(own_names(expr));
            }
            if let Node::Stmt(Stmt::Assign(name, ..)) = node {
                named.push(name.clone());
            }
        });
        let name = self.fresh("f");
        let call = |this: &mut Self| Stmt::Expr(Expr::Note(this.fresh("n"), Box::new(Expr::CallClosure(name.clone()))));
        let first = call(self);
        let label = self.fresh("a");
        let pause = Stmt::Expr(Expr::Await(Leaf::Later, label, Box::new(Expr::Lit(self.below(8) as u32))));
        let second = call(self);
        let binding = Binding { name: name.clone(), mutable: kind == ClosureKind::Mutable, annotated: None };
        let scene = Stmt::Expr(Expr::Block(Block {
            stmts: vec![Stmt::Let(Pat::Bind(binding), Expr::Closure(Box::new(closure))), first, pause, second],
            tail: None,
        }));
        // After it: a use, or a move, of what it captured.
        if let Some(captured) = named.first() {
            let var = self.visible().into_iter().find(|var| var.name == *captured)?;
            let value = match var.ty {
                Ty::Loud if var.movable && self.chance(50) => Expr::Call(Helper::Consume, vec![Expr::Var(var.name)]),
                Ty::Loud => Expr::Weigh(var.name),
                Ty::Buf => Expr::Total(var.name),
                _ => self.term(&var, Body::Plain),
            };
            let note = self.fresh("n");
            self.follow_ups.push(Stmt::Expr(Expr::Note(note, Box::new(value))));
        }
        Some(scene)
    }

    // ----- issue 40's shapes: what published crates showed -------------------------------

    /// One of the shapes of published crates' bodies that the classic lowering once got
    /// wrong, or `None` where it does not apply here.
    fn crate_shape(&mut self) -> Option<Stmt> {
        let note = self.fresh("n");
        match self.below(3) {
            // `{ let a = Loud::new(..); note(.., weigh_later(&a).await); note(.., consume(Pair {
            // a, b: Loud::new(..) }.a)); }`: `a` kept in place, then named by a shorthand.
            0 => {
                let made = self.fresh("l");
                let other = self.fresh("t");
                let binding = Binding { name: SHORTHAND_LOCAL.to_owned(), mutable: false, annotated: None };
                let kept =
                    Stmt::Expr(Expr::Note(self.fresh("n"), Box::new(Expr::WeighLater(SHORTHAND_LOCAL.to_owned()))));
                let literal = Expr::PairShorthand(Box::new(Expr::NewLoud(other)));
                let taken = Stmt::Expr(Expr::Note(note, Box::new(Expr::Call(Helper::Consume, vec![literal]))));
                Some(Stmt::Expr(Expr::Block(Block {
                    stmts: vec![Stmt::Let(Pat::Bind(binding), Expr::NewLoud(made)), kept, taken],
                    tail: None,
                })))
            }
            // `note(.., consume(v.a)); note(.., consume(Pair { a: Loud::new(..), ..v }.b));`:
            // `v.b` moves out of a pair whose other field moved before. (With `v.a` still
            // there, the classic lowering moves all of `v` into the literal, and `v.a` drops
            // where the statement ends rather than where `v`'s scope does: the README's
            // "Where the lowerings differ", not drawn.)
            1 => {
                let moved = self.moved.clone();
                let pairs: Vec<String> = self
                    .visible()
                    .into_iter()
                    .filter(|var| var.ty == Ty::Duo && var.present && var.parts == 0)
                    .filter(|var| var.in_this_loop && !var.frozen)
                    .map(|var| var.name)
                    .filter(|name| !moved.iter().any(|gone| gone.starts_with(&format!("{name}."))))
                    .collect();
                let base = pairs.get(self.below(pairs.len().max(1)))?.clone();
                self.moved.push(format!("{base}.a"));
                self.moved.push(format!("{base}.b"));
                let first = Expr::Call(Helper::Consume, vec![Expr::MoveField(base.clone(), true)]);
                let update = Expr::PairUpdate(Box::new(Expr::NewLoud(self.fresh("l"))), base);
                let second = self.fresh("n");
                self.follow_ups
                    .push(Stmt::Expr(Expr::Note(second, Box::new(Expr::Call(Helper::Consume, vec![update])))));
                Some(Stmt::Expr(Expr::Note(note, Box::new(first))))
            }
            // `note(.., weigh_all_later(.., &[&a, &Loud::new(..), &1u32]).await)`: an array of
            // trait objects an awaited call borrows, of `Loud` locals and temporaries.
            _ if self.chance(40) => {
                let label = self.fresh("w");
                let count = 1 + self.below(3);
                let sources =
                    (0..count)
                        .map(|_| {
                            if self.chance(60) {
                                self.pick_var(|var| var.ty == Ty::Loud && var.borrowable)
                            } else {
                                None
                            }
                        })
                        .collect();
                Some(Stmt::Expr(Expr::Note(note, Box::new(Expr::WeighAll(label, sources)))))
            }
            // `note(.., len_later(.., &<src>.name().to_uppercase()).await)`, of a `Loud` local
            // or a temporary one.
            _ => {
                let source =
                    if self.chance(50) { self.pick_var(|var| var.ty == Ty::Loud && var.borrowable) } else { None };
                let label = self.fresh("u");
                Some(Stmt::Expr(Expr::Note(note, Box::new(Expr::UpperLater(label, source)))))
            }
        }
    }

    // ----- issue 26's shapes: what real crates write ---------------------------------------

    /// `info!(..)` or `event!(..)` with tracing's grammar, naming what is in scope.
    fn event(&mut self) -> Stmt {
        let named = |var: &check::Visible| var.borrowable && !var.name.contains('.');
        let mut fields = Vec::new();
        for _ in 0..self.below(4) {
            let field = match self.below(6) {
                0 => {
                    self.pick_var(|var| named(var) && matches!(var.ty, Ty::U32 | Ty::Loud | Ty::Res)).map(Field::Debug)
                }
                1 => self.pick_var(|var| named(var) && var.ty == Ty::U32).map(Field::Display),
                2 => self.pick_var(|var| named(var) && matches!(var.ty, Ty::U32 | Ty::Loud)).map(Field::Bare),
                3 => self
                    .pick_field(false)
                    .filter(|(name, _)| !name.contains('.'))
                    .map(|(name, first)| Field::Part(name, first)),
                _ => {
                    // The key may be a local's name: it names no local there.
                    let key = match self.pick_var(|var| !var.name.contains('.')) {
                        Some(name) if self.chance(30) => name,
                        _ => self.fresh("k"),
                    };
                    let sigil = [Sigil::None, Sigil::Debug, Sigil::Display][self.below(3)];
                    Some(Field::Named(key, sigil, self.simple_u32(false)))
                }
            };
            fields.extend(field);
        }
        let message = (fields.is_empty() || self.chance(60)).then(|| {
            let label = self.fresh("m");
            let mut captures = Vec::new();
            for _ in 0..self.below(3) {
                let debug = self.chance(40);
                let wanted = if debug { Ty::Loud } else { Ty::U32 };
                if let Some(name) = self.pick_var(|var| named(var) && var.ty == wanted) {
                    captures.push((name, debug));
                }
            }
            let arg = self.chance(30).then(|| self.simple_u32(false));
            Message { label, captures, arg }
        });
        let target = self.chance(30).then(|| self.fresh("t"));
        let level = if self.chance(30) { Some(self.chance(50)) } else { None };
        Stmt::Expr(Expr::Event(Box::new(Event { target, level, fields, message })))
    }

    /// A literal, a `u32` variable, `ev(..)` of one, or (`awaits`) a helper awaited on one.
    fn simple_u32(&mut self, awaits: bool) -> Expr {
        let value = match self.pick_var(|var| var.ty == Ty::U32 && !var.name.starts_with("self.")) {
            Some(name) if self.chance(40) => Expr::Var(name),
            _ => Expr::Lit(self.below(8) as u32),
        };
        match self.below(3) {
            0 => Expr::Ev(self.fresh("e"), Box::new(value)),
            1 if awaits => {
                let leaf = self.leaf();
                Expr::Await(leaf, self.fresh("a"), Box::new(value))
            }
            _ => value,
        }
    }

    /// `let Ok(v) = init else { ..; diverge };`, with awaits in the initializer or the block.
    fn let_else(&mut self) -> Stmt {
        let init = match self.below(4) {
            0 => {
                let label = self.fresh("c");
                let checked = Expr::Check(label, Box::new(self.expr(&Ty::U32, 2)));
                let leaf = self.leaf();
                Expr::Await(leaf, self.fresh("a"), Box::new(checked))
            }
            1 => match self.pick_var(|var| var.ty == Ty::Res && var.movable) {
                Some(name) => {
                    self.moved.push(name.clone());
                    Expr::Var(name)
                }
                None => Expr::Check(self.fresh("c"), Box::new(self.expr(&Ty::U32, 2))),
            },
            _ => Expr::Check(self.fresh("c"), Box::new(self.expr(&Ty::U32, 2))),
        };
        let saved = self.env.clone();
        let _ = self.env.expr(&init);
        self.env.push_scope();
        let len = if self.block_depth >= MAX_BLOCK_DEPTH { 0 } else { self.below(3) };
        let mut otherwise = self.block_with(len, &Ty::Unit);
        otherwise.stmts.push(Stmt::Expr(self.diverge()));
        self.env = saved;
        Stmt::LetElse(self.binding(true), init, otherwise)
    }

    /// What real crates write that yields a `u32`: a consuming method on a local or parameter,
    /// another method of the same impl awaited on `self`, a temporary held across an await.
    fn real_code_u32(&mut self, sub: u32) -> Option<Expr> {
        match self.below(10) {
            0..=3 => {
                let name = self.pick_var(|var| var.ty == Ty::Loud && var.movable)?;
                self.moved.push(name.clone());
                // `consuming_forms` writes it as a function where the method form is refused.
                // A method's argument does not await: the lowering moves the receiver after
                // an awaiting argument (the README's "Where the lowerings still differ").
                let form = if self.chance(50) { CallForm::Method } else { CallForm::Function };
                Some(match self.below(2) {
                    0 => Expr::IntoLen(name, form),
                    _ if form == CallForm::Method => Expr::SpendLater(name, form, Box::new(self.simple_u32(false))),
                    _ => Expr::SpendLater(name, form, Box::new(self.expr(&Ty::U32, sub))),
                })
            }
            4..=6 if self.visible().iter().any(|var| var.name == "self.count") => {
                Some(Expr::SelfBump(Box::new(self.simple_u32(true))))
            }
            _ => Some(self.tail_temporary()),
        }
    }

    /// How a `let`'s `&Loud::new(..)` is written: the temporary itself, a field of a tuple made
    /// with a value (awaited, or not), `*` of a box, one of an `if`'s two, a block's tail.
    fn extension(&mut self) -> Extension {
        match self.below(5) {
            0 => Extension::Whole,
            1 => {
                let value = self.expr(&Ty::U32, 1);
                let value =
                    if self.chance(50) { Expr::Await(self.leaf(), self.fresh("a"), Box::new(value)) } else { value };
                Extension::Field(Box::new(value))
            }
            2 => Extension::Deref,
            3 => Extension::If(Box::new(self.expr(&Ty::Bool, 1))),
            _ => Extension::Block,
        }
    }

    /// A `u32` made while a temporary `Loud` it borrows (or sits beside) lives across an await.
    fn tail_temporary(&mut self) -> Expr {
        let label = self.fresh("t");
        let leaf = self.leaf();
        let value = Box::new(self.expr(&Ty::U32, 1));
        let awaited = Expr::Await(leaf, self.fresh("a"), value);
        match self.below(3) {
            0 => Expr::Call(Helper::Mix, vec![Expr::WeighNew(label), awaited]),
            1 => Expr::TupleField(vec![Expr::NewLoud(label), awaited], 1),
            _ => Expr::PairField(Box::new(awaited), Box::new(Expr::NewLoud(label)), true),
        }
    }

    /// `async { .. }.await` of type `u32`: generated in a scope of its own, with no jump out.
    fn async_block(&mut self) -> Expr {
        let saved = self.env.clone();
        let targets = self.env.enter_async();
        self.env.push_scope();
        let len = self.below(3);
        let mut block = self.block_with(len, &Ty::U32);
        // A block whose value diverges would not be a `u32` block.
        if block
            .tail
            .as_deref()
            .is_some_and(|tail| matches!(tail, Expr::Panic(..) | Expr::Break(..) | Expr::Continue(_)))
        {
            block.tail = Some(Box::new(Expr::Lit(self.below(8) as u32)));
        }
        self.env.exit_async(targets);
        self.env = saved;
        Expr::AsyncBlock(block)
    }

    fn let_stmt(&mut self) -> Stmt {
        let ty = match self.below(10) {
            0..=5 => Ty::U32,
            6 | 7 => Ty::Loud,
            8 => Ty::Res,
            _ => Ty::Bool,
        };
        match self.below(10) {
            0 => {
                // `let _ = value;` moves nothing out of a place. (Not an item: `let _ = m;` of
                // a `use`d generic function leaves its type parameter unknown, E0283.)
                let value = match self.pick_var(|var| {
                    !var.ty.is_copy() && !matches!(var.ty, Ty::Item(_) | Ty::Closure(_)) && var.borrowable
                }) {
                    Some(name) => Expr::Var(name),
                    None => self.expr(&ty, 2),
                };
                Stmt::Let(Pat::Wild, value)
            }
            1 | 2 => {
                let types: Vec<Ty> = (0..2 + self.below(2))
                    .map(|_| [Ty::U32, Ty::Loud, Ty::U32, Ty::Res][self.below(4)].clone())
                    .collect();
                let items: Vec<Expr> = types.iter().map(|ty| self.expr(ty, 2)).collect();
                let tuple = Expr::Tuple(items);
                let init = if self.chance(50) {
                    let leaf = self.leaf();
                    Expr::Await(leaf, self.fresh("a"), Box::new(tuple))
                } else {
                    tuple
                };
                if types.contains(&Ty::U32) && self.chance(30) {
                    // Bound whole: its `u32` elements are read as `v.0` (`LocalField`).
                    return Stmt::Let(Pat::Bind(self.binding(false)), init);
                }
                let mut pats: Vec<Option<Binding>> = Vec::new();
                for _ in &types {
                    // It may hide a local (its `_` parts once dropped late: `seed7_program225`).
                    let binding = self.binding(false);
                    let binding = Some(binding).filter(|_| self.chance(80));
                    pats.push(binding);
                }
                Stmt::Let(Pat::Tuple(pats), init)
            }
            _ => {
                let init = self.expr(&ty, MAX_EXPR_DEPTH);
                let mut binding = self.binding(matches!(ty, Ty::U32 | Ty::Loud));
                // One such `let` in three, by the count of names drawn so far, says its type:
                // decided without a draw, so that each seed's programs stay the ones it drew.
                if self.next % 3 == 0 && !matches!(ty, Ty::Never | Ty::Item(_) | Ty::Closure(_)) {
                    binding.annotated = Some(ty.clone());
                }
                Stmt::Let(Pat::Bind(binding), init)
            }
        }
    }

    /// A name to bind: a new one, or one in four times the name of a visible variable, which
    /// the new binding hides (of any type, moved or not; never a loop counter).
    fn binding(&mut self, may_mutate: bool) -> Binding {
        let mutable = may_mutate && self.chance(50);
        if self.chance(25) {
            let counters = self.counters.clone();
            // Never a field of `self`.
            // A pattern may hide a borrowed local (once a bug, `seed7_program211`), or a local
            // that an async block around it captures (`seed7_program20`).
            let visible: Vec<String> = self
                .visible()
                .into_iter()
                .filter(|var| !matches!(var.ty, Ty::Item(_)) && !var.declared_by_macro)
                .map(|var| var.name)
                .filter(|name| !counters.contains(name) && !name.contains('.'))
                .collect();
            if !visible.is_empty() {
                let name = visible[self.below(visible.len())].clone();
                return Binding { name, mutable, annotated: None };
            }
        }
        Binding { name: self.fresh("v"), mutable, annotated: None }
    }

    /// A `mut` variable that is not a loop counter, with its type.
    fn pick_assignable(&mut self) -> Option<(String, Ty)> {
        let counters = self.counters.clone();
        let candidates: Vec<(String, Ty)> = self
            .visible()
            .into_iter()
            .filter(|var| {
                var.mutable && !var.frozen && matches!(var.ty, Ty::U32 | Ty::Loud) && !counters.contains(&var.name)
            })
            .map(|var| (var.name, var.ty))
            .collect();
        (!candidates.is_empty()).then(|| candidates[self.below(candidates.len())].clone())
    }

    /// What is in scope, as the generator may use it (an async block may capture a field of
    /// `self`: once a bug, `seed7_program360`).
    fn visible(&self) -> Vec<check::Visible> {
        self.env.visible()
    }

    fn pick_var(&mut self, wanted: impl Fn(&check::Visible) -> bool) -> Option<String> {
        let moved = &self.moved;
        let candidates: Vec<String> = self
            .visible()
            .into_iter()
            .filter(|var| wanted(var) && (var.ty.is_copy() || !moved.contains(&var.name)))
            .map(|var| var.name)
            .collect();
        if candidates.is_empty() { None } else { Some(candidates[self.below(candidates.len())].clone()) }
    }

    fn leaf(&mut self) -> Leaf {
        if self.chance(50) { Leaf::Now } else { Leaf::Later }
    }

    // ----- expressions --------------------------------------------------------------------

    fn expr(&mut self, ty: &Ty, depth: u32) -> Expr {
        if depth == 0 || self.chance(25) {
            return self.leaf_expr(ty);
        }
        let sub = depth - 1;
        // Constructs that give any type.
        match self.below(100) {
            0..=19 => {
                let leaf = self.leaf();
                let label = self.fresh("a");
                return Expr::Await(leaf, label, Box::new(self.expr(ty, sub)));
            }
            20..=24 => {
                let label = self.fresh("e");
                return Expr::Ev(label, Box::new(self.expr(ty, sub)));
            }
            25..=29 if self.block_depth < MAX_BLOCK_DEPTH => {
                let cond = self.expr(&Ty::Bool, sub);
                let then_branch = self.nested(ty);
                let else_branch = if self.chance(30) {
                    // An `else if` (the printer writes an `else` block holding only an `if` so).
                    let cond = self.expr(&Ty::Bool, sub);
                    let then_branch = self.nested(ty);
                    let else_branch = self.nested(ty);
                    Block {
                        stmts: Vec::new(),
                        tail: Some(Box::new(Expr::If(Box::new(cond), then_branch, Some(else_branch)))),
                    }
                } else {
                    self.nested(ty)
                };
                return Expr::If(Box::new(cond), then_branch, Some(else_branch));
            }
            30..=32 if self.block_depth < MAX_BLOCK_DEPTH => return self.match_expr(ty),
            33..=35 if self.block_depth < MAX_BLOCK_DEPTH => return Expr::Block(self.nested(ty)),
            36..=37 if self.block_depth < MAX_BLOCK_DEPTH => return self.labelled(ty),
            38..=41 if *ty != Ty::Bool => {
                // A projection: the rest of the literal is a temporary.
                let other = [Ty::U32, Ty::Res, Ty::Loud][self.below(3)].clone();
                return if self.chance(50) {
                    let first = self.expr(ty, sub);
                    let second = self.expr(&other, sub);
                    Expr::PairField(Box::new(first), Box::new(second), true)
                } else {
                    let first = self.expr(&other, sub);
                    let second = self.expr(ty, sub);
                    Expr::PairField(Box::new(first), Box::new(second), false)
                };
            }
            42..=44 => {
                let index = self.below(3);
                let items = (0..3)
                    .map(|position| {
                        if position == index {
                            self.expr(ty, sub)
                        } else {
                            let other = if self.chance(30) { Ty::Loud } else { Ty::U32 };
                            self.expr(&other, sub)
                        }
                    })
                    .collect();
                return Expr::TupleField(items, index);
            }
            45 if self.chance(30) => {
                let label = self.fresh("f");
                return Expr::Forever(label, ty.clone());
            }
            _ => {}
        }
        match ty {
            Ty::U32 => self.u32_expr(sub),
            Ty::Bool => self.bool_expr(sub),
            Ty::Res => match self.below(3) {
                0 => {
                    let label = self.fresh("c");
                    Expr::Check(label, Box::new(self.expr(&Ty::U32, sub)))
                }
                1 => Expr::Ok(Box::new(self.expr(&Ty::U32, sub))),
                _ => self.leaf_expr(ty),
            },
            _ => self.leaf_expr(ty),
        }
    }

    fn u32_expr(&mut self, sub: u32) -> Expr {
        if self.real_code && self.chance(10) {
            if let Some(value) = self.real_code_u32(sub) {
                return value;
            }
        }
        if self.macros && self.chance(8) {
            if let Some(value) = self.macro_u32() {
                return value;
            }
        }
        match self.below(100) {
            0..=24 => {
                let op = [Op::Add, Op::Xor, Op::BitOr, Op::BitAnd, Op::Add, Op::Mul][self.below(6)];
                let left = self.expr(&Ty::U32, sub);
                let right = self.expr(&Ty::U32, sub);
                Expr::Binary(op, Box::new(left), Box::new(right))
            }
            25..=39 => {
                let helper = if self.chance(60) { Helper::Mix } else { Helper::Add3 };
                let count = if helper == Helper::Mix { 2 } else { 3 };
                let args = (0..count).map(|_| self.expr(&Ty::U32, sub)).collect();
                Expr::Call(helper, args)
            }
            40..=47 => {
                let loud = self.expr(&Ty::Loud, sub);
                Expr::Call(Helper::Consume, vec![loud])
            }
            48..=57 => {
                let method = [Method::WrappingAdd, Method::Max, Method::Min][self.below(3)];
                let receiver = self.expr(&Ty::U32, sub);
                let arg = self.expr(&Ty::U32, sub);
                Expr::Method(Box::new(receiver), method, Box::new(arg))
            }
            58..=64 => {
                let items = (0..3).map(|_| self.expr(&Ty::U32, sub)).collect();
                Expr::Index(items, Box::new(self.expr(&Ty::U32, sub)))
            }
            65..=79 if self.env.may_return() => Expr::Try(Box::new(self.expr(&Ty::Res, sub))),
            80..=86 if self.block_depth < MAX_BLOCK_DEPTH && self.loop_depth < MAX_LOOP_DEPTH => {
                self.loop_expr(&Ty::U32)
            }
            87..=94 => self.borrowing_u32(sub).unwrap_or_else(|| self.leaf_expr(&Ty::U32)),
            _ => self.leaf_expr(&Ty::U32),
        }
    }

    fn bool_expr(&mut self, sub: u32) -> Expr {
        match self.below(100) {
            0..=44 => {
                let op = if self.chance(60) { Op::Lt } else { Op::Eq };
                let left = self.expr(&Ty::U32, sub);
                let right = self.expr(&Ty::U32, sub);
                Expr::Binary(op, Box::new(left), Box::new(right))
            }
            45..=69 => {
                let op = if self.chance(50) { Op::And } else { Op::Or };
                let left = self.expr(&Ty::Bool, sub);
                let right = self.expr(&Ty::Bool, sub);
                Expr::Binary(op, Box::new(left), Box::new(right))
            }
            70..=79 => Expr::Not(Box::new(self.expr(&Ty::Bool, sub))),
            _ => self.leaf_expr(&Ty::Bool),
        }
    }

    /// A simple expression of type `ty`: a literal, a variable, a leaf await.
    fn leaf_expr(&mut self, ty: &Ty) -> Expr {
        let roll = self.below(100);
        match ty {
            Ty::U32 => match roll {
                0..=24 => Expr::Lit(self.below(8) as u32),
                25..=34 => match self.pick_var(|var| var.ty == Ty::U32) {
                    Some(name) => Expr::Var(name),
                    None => Expr::Lit(self.below(8) as u32),
                },
                35..=44 => {
                    let tuples: Vec<(String, Vec<usize>)> = self
                        .visible()
                        .into_iter()
                        .filter(|var| var.borrowable)
                        .filter_map(|var| match var.ty {
                            Ty::Tuple(types) => Some((
                                var.name,
                                types
                                    .iter()
                                    .enumerate()
                                    .filter(|(_, ty)| **ty == Ty::U32)
                                    .map(|(i, _)| i)
                                    .collect::<Vec<usize>>(),
                            )),
                            _ => None,
                        })
                        .filter(|(_, fields)| !fields.is_empty())
                        .collect();
                    if tuples.is_empty() {
                        match self.pick_var(|var| var.ty == Ty::U32) {
                            Some(name) => Expr::Var(name),
                            None => Expr::Lit(self.below(8) as u32),
                        }
                    } else {
                        let (name, fields) = tuples[self.below(tuples.len())].clone();
                        Expr::LocalField(name, fields[self.below(fields.len())])
                    }
                }
                45..=59 => {
                    let label = self.fresh("e");
                    Expr::Ev(label, Box::new(Expr::Lit(self.below(8) as u32)))
                }
                60..=69 => {
                    let leaf = self.leaf();
                    let label = self.fresh("a");
                    Expr::Await(leaf, label, Box::new(Expr::Lit(self.below(8) as u32)))
                }
                // An item of the body, if one is in scope.
                70..=74 if self.everyday && self.visible().iter().any(|var| matches!(var.ty, Ty::Item(_))) => {
                    let items: Vec<(String, ItemKind)> = self
                        .visible()
                        .into_iter()
                        .filter_map(|var| match var.ty {
                            Ty::Item(kind) => Some((var.name, kind)),
                            _ => None,
                        })
                        .collect();
                    let (name, kind) = items[self.below(items.len())].clone();
                    let arity = match kind {
                        ItemKind::Const(_) => 0,
                        ItemKind::Fn | ItemKind::Struct => 1,
                        ItemKind::Use => 2,
                    };
                    let mut args = Vec::new();
                    for _ in 0..arity {
                        args.push(if self.chance(50) {
                            let leaf = self.leaf();
                            Expr::Await(leaf, self.fresh("a"), Box::new(Expr::Lit(self.below(8) as u32)))
                        } else {
                            Expr::Lit(self.below(8) as u32)
                        });
                    }
                    Expr::ItemUse(name, kind, args)
                }
                // `futures::join!` of 2 or 3 awaited helper calls (issue 14's shape).
                75..=79 if self.everyday => {
                    let count = 2 + self.below(2);
                    let mut items = Vec::new();
                    for _ in 0..count {
                        let leaf = self.leaf();
                        let label = self.fresh("a");
                        let value = match self.pick_var(|var| var.ty == Ty::U32) {
                            Some(name) if self.chance(40) => Expr::Var(name),
                            _ => Expr::Lit(self.below(8) as u32),
                        };
                        items.push(Expr::Await(leaf, label, Box::new(value)));
                    }
                    Expr::Join(items, self.below(count))
                }
                70..=79 => {
                    let leaf = self.leaf();
                    let label = self.fresh("a");
                    Expr::Await(leaf, label, Box::new(Expr::Lit(self.below(8) as u32)))
                }
                _ => match self.pick_var(|var| var.ty == Ty::Loud && var.borrowable) {
                    Some(name) if self.chance(60) => Expr::Weigh(name),
                    _ => Expr::WeighNew(self.fresh("t")),
                },
            },
            Ty::Bool => match roll {
                0..=29 => Expr::Bool(self.chance(50)),
                30..=49 => match self.pick_var(|var| var.ty == Ty::Res && var.borrowable) {
                    Some(name) => Expr::IsOk(name),
                    None => Expr::Bool(self.chance(50)),
                },
                50..=69 => {
                    let label = self.fresh("e");
                    Expr::Ev(label, Box::new(Expr::Bool(self.chance(50))))
                }
                _ => {
                    let leaf = self.leaf();
                    let label = self.fresh("a");
                    Expr::Await(leaf, label, Box::new(Expr::Bool(self.chance(50))))
                }
            },
            Ty::Loud => match self.pick_var(|var| var.ty == Ty::Loud && var.movable) {
                Some(name) if roll < 40 => {
                    self.moved.push(name.clone());
                    Expr::Var(name)
                }
                _ if roll >= 90 => match self.pick_field(true) {
                    Some((name, first)) => Expr::MoveField(name, first),
                    None => Expr::NewLoud(self.fresh("l")),
                },
                _ => Expr::NewLoud(self.fresh("l")),
            },
            Ty::Res => match self.pick_var(|var| var.ty == Ty::Res && var.movable) {
                Some(name) if roll < 40 => {
                    self.moved.push(name.clone());
                    Expr::Var(name)
                }
                _ if roll < 60 => Expr::Err(self.fresh("x")),
                _ => {
                    let label = self.fresh("c");
                    Expr::Check(label, Box::new(Expr::Lit(self.below(8) as u32)))
                }
            },
            _ => simplest(ty),
        }
    }

    /// `return`, `break`, `continue` or `panic!`, as the enclosing loops allow.
    fn diverge(&mut self) -> Expr {
        // The innermost targets, up to a `while` whose condition this is.
        let mut targets: Vec<check::Target> = self.env.targets().to_vec();
        if let Some(condition) = targets.iter().position(|target| target.in_condition) {
            targets.truncate(condition);
        }
        let roll = self.below(100);
        if !targets.is_empty() && roll < 55 {
            let index = self.below(targets.len());
            let target = &targets[index];
            let innermost = index == self.env.targets().len() - 1;
            let label = if innermost && target.is_loop && self.chance(50) { None } else { Some(target.label.clone()) };
            if target.is_loop && !target.in_break_value && self.chance(40) {
                return Expr::Continue(label);
            }
            let value = match &target.ty {
                Some(ty) if target.takes_value && *ty != Ty::Unit => Some(Box::new(self.expr(&ty.clone(), 2))),
                _ => None,
            };
            return Expr::Break(label, value);
        }
        if roll < 85 && self.env.may_return() {
            let value =
                if self.chance(50) { Expr::Err(self.fresh("x")) } else { Expr::Ok(Box::new(self.expr(&Ty::U32, 2))) };
            return Expr::Return(Box::new(value));
        }
        let label = self.fresh("p");
        let resumed = self.chance(30);
        Expr::Panic(label, Box::new(self.expr(&Ty::U32, 1)), resumed)
    }

    fn match_expr(&mut self, ty: &Ty) -> Expr {
        let on_result = self.chance(30);
        let scrutinee = self.expr(if on_result { &Ty::Res } else { &Ty::U32 }, 2);
        let mut pats = Vec::new();
        if on_result {
            pats.push(ArmPat::Ok(self.fresh("v")));
            pats.push(ArmPat::Err);
        } else {
            for _ in 0..self.below(3) {
                pats.push(if self.chance(50) {
                    ArmPat::Lit(self.below(8) as u32)
                } else {
                    ArmPat::Either(self.below(8) as u32, self.below(8) as u32 + 8)
                });
            }
            // A guard that awaits, on a binding or a literal arm (issue 14's shape).
            if self.everyday && self.chance(30) {
                pats.push(ArmPat::Bind(self.fresh("v")));
            }
            pats.push(if self.chance(50) { ArmPat::Bind(self.fresh("v")) } else { ArmPat::Wild });
        }
        let last = pats.len() - 1;
        // rustc (1.95, opt-level 0) miscompiles the plain `async fn` when a guard awaits and
        // the scrutinee is an indexed place (`[a, b, c][i]`, even `a[0]` of a local array): the
        // wrong arm runs, or it crashes (docs/rustc-bugs.md). The reference would be wrong, so
        // that shape is not drawn; `match_guards::an_indexed_scrutinee` runs it under the
        // classic lowering against the values Rust specifies.
        let miscompiled = matches!(scrutinee, Expr::Index(..));
        // Each arm sees the scrutinee's moves and its own binding.
        let saved = self.env.clone();
        let _ = self.env.expr(&scrutinee);
        let arms = pats
            .into_iter()
            .enumerate()
            .map(|(index, pat)| {
                let outer = self.env.clone();
                self.env.push_scope();
                if let ArmPat::Bind(name) | ArmPat::Ok(name) = &pat {
                    self.env.declare(name, Ty::U32, false);
                }
                let guarded = self.everyday && index < last && !on_result && !miscompiled && self.chance(40);
                let guard = guarded.then(|| self.guard(&pat));
                let body = if self.chance(50) { Expr::Block(self.nested(ty)) } else { self.arm_value(ty) };
                self.env = outer;
                Arm { pat, guard, body }
            })
            .collect();
        self.env = saved;
        Expr::Match(Box::new(scrutinee), arms)
    }

    /// `later("a", v < 4).await` (or `now`), on the arm's binding or a literal.
    fn guard(&mut self, pat: &ArmPat) -> Expr {
        let leaf = self.leaf();
        let label = self.fresh("a");
        let left = match pat {
            ArmPat::Bind(name) => Expr::Var(name.clone()),
            _ => Expr::Ev(self.fresh("e"), Box::new(Expr::Lit(self.below(8) as u32))),
        };
        let test = Expr::Binary(Op::Lt, Box::new(left), Box::new(Expr::Lit(self.below(8) as u32)));
        Expr::Await(leaf, label, Box::new(test))
    }

    fn arm_value(&mut self, ty: &Ty) -> Expr {
        match ty {
            Ty::Unit => {
                let label = self.fresh("n");
                Expr::Note(label, Box::new(self.expr(&Ty::U32, 2)))
            }
            _ if self.chance(10) => self.diverge(),
            ty => self.expr(ty, 2),
        }
    }

    /// `'b: { .. }`, with a `break 'b` on some path.
    fn labelled(&mut self, ty: &Ty) -> Expr {
        let label = self.fresh("b");
        let saved = self.env.clone();
        let _ = self.env.enter(&label, false, true, Some(ty.clone()));
        let block = self.nested(ty);
        self.env = saved;
        Expr::Labelled(label, block)
    }

    fn loop_expr(&mut self, ty: &Ty) -> Expr {
        let label = self.fresh("l");
        let saved = self.env.clone();
        self.loop_depth += 1;
        self.env.push_scope();
        let buf = self.pick_var(|var| var.ty == Ty::Buf && var.borrowable).filter(|_| self.chance(50));
        let kind = match self.below(if *ty == Ty::U32 { 1 } else { 4 }) {
            _ if *ty != Ty::U32 && buf.is_some() => {
                let buf = buf.expect("checked");
                let _ = self.env.hold(&buf);
                let _ = self.env.enter(&label, true, false, None);
                let name = self.fresh("i");
                self.env.declare(&name, Ty::Ref(Box::new(Ty::U32)), false);
                LoopKind::OverBuf { name, buf }
            }
            0 => {
                let counter = self.fresh("k");
                self.env.declare(&counter, Ty::U32, true);
                self.counters.push(counter.clone());
                let _ = self.env.enter(&label, true, true, Some(ty.clone()));
                self.env.in_break_value(true);
                let default = if *ty == Ty::U32 { Some(Box::new(self.expr(&Ty::U32, 1))) } else { None };
                self.env.in_break_value(false);
                LoopKind::Loop { counter, bound: self.below(4) as u32, default }
            }
            1 => {
                let counter = self.fresh("k");
                self.env.declare(&counter, Ty::U32, true);
                self.counters.push(counter.clone());
                let _ = self.env.enter(&label, true, false, None);
                self.env.in_condition(true);
                let cond = Box::new(self.expr(&Ty::Bool, 2));
                self.env.in_condition(false);
                LoopKind::While { counter, bound: self.below(4) as u32, cond }
            }
            2 => {
                let end = Box::new(self.expr(&Ty::U32, 2));
                let _ = self.env.expr(&end);
                let _ = self.env.enter(&label, true, false, None);
                let name = self.fresh("i");
                self.env.declare(&name, Ty::U32, false);
                LoopKind::Range { name, end }
            }
            _ => {
                let _ = self.env.enter(&label, true, false, None);
                let name = self.fresh("i");
                self.env.declare(&name, Ty::Loud, false);
                let labels = (0..1 + self.below(3)).map(|_| self.fresh("l")).collect();
                let leaf = if self.chance(50) {
                    let leaf = self.leaf();
                    Some((leaf, self.fresh("a")))
                } else {
                    None
                };
                LoopKind::Louds { name, labels, leaf }
            }
        };
        let body = self.nested(&Ty::Unit);
        self.loop_depth -= 1;
        self.env = saved;
        Expr::Loop(Loop { label, kind, body })
    }
}

/// Whether `var` can be an operand of `body` (as what it takes, borrows or reads).
fn fits(var: &check::Visible, body: Body) -> bool {
    let element = matches!(&var.ty, Ty::Tuple(types) if types.contains(&Ty::U32)) && var.present;
    let field = var.ty == Ty::Duo && var.present && var.parts != 3;
    let reference = matches!(&var.ty, Ty::Ref(inner) if matches!(**inner, Ty::U32 | Ty::Loud));
    let droppy = matches!(var.ty, Ty::Loud | Ty::Buf);
    match body {
        Body::Plain => var.ty == Ty::U32 || reference || (droppy && var.borrowable),
        Body::Store(store) if store.is_macro() => {
            (var.ty == Ty::U32 && var.in_this_loop && !var.frozen) || (droppy && var.movable)
        }
        Body::Store(_) => var.ty == Ty::U32 || (droppy && var.movable) || element || field,
        Body::Closure(ClosureKind::Move, true) => var.ty == Ty::U32 || element,
        Body::Closure(ClosureKind::Move, false) => {
            var.ty == Ty::U32 || reference || (droppy && var.movable) || element || field
        }
        Body::Closure(..) => var.ty == Ty::U32 || reference || (droppy && var.borrowable) || element || field,
    }
}

/// The simplest expression of a type (what a failed draw falls back to).
fn simplest(ty: &Ty) -> Expr {
    match ty {
        Ty::Bool => Expr::Bool(false),
        Ty::Loud => Expr::NewLoud("z".to_owned()),
        Ty::Res => Expr::Ok(Box::new(Expr::Lit(0))),
        _ => Expr::Lit(0),
    }
}

/// Writes a consuming method as the function of its value (`Loud::into_len(v)`) where the
/// classic lowering refuses the method form on purpose (the README's "What it rejects"): the
/// name is borrowed somewhere in the function (by any binding of it: which locals live in
/// place is decided by name), or some binding of it is `mut`, or it is a pattern parameter.
/// Both forms are drawn where the method form is taken.
fn consuming_forms(program: &mut Program) {
    let mut kept: Vec<String> = program
        .params
        .iter()
        .filter(|param| param.mutable || param.shape == ParamShape::WithWild)
        .map(|param| param.name.clone())
        .collect();
    visit_block(&program.body, &mut |node| match node {
        Node::Stmt(Stmt::Let(pat, _)) => match pat {
            Pat::Bind(binding) if binding.mutable => kept.push(binding.name.clone()),
            Pat::Tuple(items) => kept.extend(items.iter().flatten().filter(|b| b.mutable).map(|b| b.name.clone())),
            _ => {}
        },
        Node::Stmt(Stmt::LetElse(binding, ..)) if binding.mutable => kept.push(binding.name.clone()),
        Node::Expr(expr) => kept.extend(borrowed_names(expr)),
        _ => {}
    });
    let rewrite = |expr: &mut Expr| match expr {
        Expr::IntoLen(name, form) | Expr::SpendLater(name, form, _) if kept.contains(name) => {
            *form = CallForm::Function;
        }
        _ => {}
    };
    visit_block_mut(&mut program.body, &mut { rewrite });
}

/// The names an expression borrows (not counting its parts): what the lowering's loans
/// analysis may find borrowed. Everything an async block mentions is captured by it.
fn borrowed_names(expr: &Expr) -> Vec<String> {
    match expr {
        Expr::Weigh(name)
        | Expr::WeighLater(name)
        | Expr::IsOk(name)
        | Expr::Borrow(name)
        | Expr::Total(name)
        | Expr::Fill(name, _)
        | Expr::PushLater(name, _)
        | Expr::WeighField(name, _)
        | Expr::MoveField(name, _)
        | Expr::LocalField(name, _)
        | Expr::UpperLater(_, Some(name)) => vec![name.clone()],
        Expr::WeighAll(_, sources) => sources.iter().flatten().cloned().collect(),
        Expr::Loop(Loop { kind: LoopKind::OverBuf { buf, .. }, .. }) => vec![buf.clone()],
        Expr::Event(event) => {
            let mut names: Vec<String> = event
                .fields
                .iter()
                .filter_map(|field| match field {
                    Field::Debug(name) | Field::Display(name) | Field::Bare(name) | Field::Part(name, _) => {
                        Some(name.clone())
                    }
                    Field::Named(..) => None,
                })
                .collect();
            if let Some(message) = &event.message {
                names.extend(message.captures.iter().map(|(name, _)| name.clone()));
            }
            names
        }
        Expr::AsyncBlock(body) => {
            let mut names = Vec::new();
            visit_block(body, &mut |node| {
                if let Node::Expr(Expr::Var(name) | Expr::IntoLen(name, _) | Expr::SpendLater(name, ..)) = node {
                    names.push(name.clone());
                }
                if let Node::Expr(expr) = node {
                    names.extend(borrowed_names(expr));
                }
            });
            names
        }
        _ => Vec::new(),
    }
}
