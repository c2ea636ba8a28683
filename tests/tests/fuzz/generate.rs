//! Random programs, valid by construction: every statement is generated against the
//! checker's view of what is in scope (which values can still move, which loops a `break`
//! can leave), then applied to it; a statement the checker rejects is dropped and another
//! is drawn.

use proptest::prelude::RngExt;
use proptest::test_runner::{RngAlgorithm, TestRng};

use super::ast::*;
use super::check::{self, Checker};

/// Program `index` of the run with this seed: the same program every time, whatever the
/// other programs are.
pub fn program(seed: u64, index: usize) -> Program {
    program_with(seed, index, std::env::var("LOWERING_FUZZ_EVERYDAY").map_or(true, |value| value != "0"))
}

/// `everyday`: also draw issue 14's shapes (unit functions ending in loops, pattern
/// parameters, `join!`, items in the body, guards that await), as every run does unless
/// `LOWERING_FUZZ_EVERYDAY=0` (the programs of runs made before those shapes existed).
pub fn program_with(seed: u64, index: usize, everyday: bool) -> Program {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8..16].copy_from_slice(&(index as u64).to_le_bytes());
    let mut rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    loop {
        let mut generator = Generator::new(&mut rng);
        generator.everyday = everyday;
        generator.real_code = everyday && real_code();
        let mut program = generator.program();
        consuming_forms(&mut program);
        // Valid by construction; the check guards the generator itself.
        if check::program(&program).is_ok() {
            return Program { signature: signature(seed, index, program.receiver), ..program };
        }
    }
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
        for _ in 0..len {
            let before = self.env.clone();
            let stmt = self.stmt();
            match self.env.stmt(&stmt) {
                Ok(_) => stmts.push(stmt),
                Err(_) => self.env = before,
            }
            // Inside a nested block, the enclosing statement's moves are still pending.
            if outermost {
                self.moved.clear();
            }
        }
        let tail = match ty {
            Ty::Unit => None,
            ty => {
                let before = self.env.clone();
                let mut tail = self.tail(ty);
                if !self.env.expr(&tail).is_ok_and(|found| found == *ty || found == Ty::Never) {
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
        if self.real_code {
            match self.below(100) {
                0..=4 => return self.event(),
                5..=9 => return self.let_else(),
                // A temporary whose life the `let` extends, held across the awaits after it.
                10..=12 => return Stmt::Let(Pat::Bind(self.binding(false)), Expr::BorrowNew(self.fresh("t"))),
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
                Stmt::Let(Pat::Bind(Binding { name: self.fresh("v"), mutable: self.chance(85) }), Expr::NewBuf(label))
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
                let value =
                    match self.pick_var(|var| !var.ty.is_copy() && !matches!(var.ty, Ty::Item(_)) && var.borrowable) {
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
                Stmt::Let(Pat::Bind(self.binding(matches!(ty, Ty::U32 | Ty::Loud))), init)
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
                .filter(|var| !matches!(var.ty, Ty::Item(_)))
                .map(|var| var.name)
                .filter(|name| !counters.contains(name) && !name.contains('.'))
                .collect();
            if !visible.is_empty() {
                let name = visible[self.below(visible.len())].clone();
                return Binding { name, mutable };
            }
        }
        Binding { name: self.fresh("v"), mutable }
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
        Expr::Panic(label, Box::new(self.expr(&Ty::U32, 1)))
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
        | Expr::LocalField(name, _) => vec![name.clone()],
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
