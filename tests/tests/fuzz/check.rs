//! Which programs are valid Rust: a conservative type, move and label checker for the
//! generated language. The generator's output passes it by construction (it is checked
//! anyway), and the shrinker keeps only the candidates that pass it, so that a rustc error in
//! a batch can only come from the classic expansion.
//!
//! Conservative means: whatever it accepts, rustc accepts; it may reject what rustc would
//! accept (a value moved on a path that diverges counts as moved afterwards, say).

use super::ast::*;

pub type Result<T> = std::result::Result<T, String>;

/// Is `program` a function rustc accepts?
pub fn program(program: &Program) -> Result<()> {
    let mut checker = Checker::with_params(&program.params);
    if program.receiver {
        checker.declare_receiver();
    }
    checker.unit = program.unit;
    declared_by_macros(program)?;
    let ty = checker.block(&program.body)?;
    unify(&ty, if program.unit { &Ty::Unit } else { &Ty::Res }).map(drop)
}

#[derive(Clone)]
struct Var {
    name: String,
    ty: Ty,
    mutable: bool,
    moved: bool,
    /// How many loops enclose its declaration: a value declared outside a loop cannot move
    /// inside it (the next iteration would find it moved).
    loop_depth: usize,
    /// How many jump targets enclose its declaration: an assignment makes it usable again
    /// only where no `break` can skip the assignment and still reach a use.
    target_depth: usize,
    /// The fields moved out of a `Pair<Loud, Loud>` (bit 0: `a`, bit 1: `b`), on some path.
    parts: u8,
    /// How many references in scope borrow it: while any does, it neither moves nor is
    /// assigned nor borrowed mutably.
    frozen: u32,
    /// Borrowed mutably by the call whose arguments are being checked: not usable at all.
    locked: bool,
    /// A reference's referent (scope and position), unfrozen when the reference's scope ends.
    referent: Option<(usize, usize)>,
    /// A field of `self` (behind `&mut`): assigned and borrowed, never moved out.
    behind_ref: bool,
    /// Taken by a macro of the user's (`keep!`, `deferred!`), which must be its last use,
    /// `Copy` or not: no later code names it.
    gone: bool,
    /// How many closures a `let` keeps borrow it mutably: while any does, nothing else uses it.
    exclusive: u32,
    /// A hidden holder (a closure's borrow): its referent is borrowed mutably, not shared.
    holds_exclusive: bool,
    /// Declared by `declare!` (the lowering cannot see the `let`), in this await epoch: once a
    /// statement that awaits begins, it is not used again.
    macro_epoch: Option<usize>,
    /// How many async blocks enclosed the move of its field `b` by one of them (it was
    /// declared outside): a block that takes `b` and then `a` drops them, if dropped
    /// unfinished, in that order under classic and in the fields' order under the plain
    /// function (the README's "Where the lowerings differ"): not drawn.
    second_taken_by_block: Option<usize>,
}

/// A variable as code at the current point sees it.
#[derive(Clone)]
pub(super) struct Visible {
    pub name: String,
    pub ty: Ty,
    /// Can be used by value here.
    pub movable: bool,
    pub borrowable: bool,
    pub mutable: bool,
    /// Borrowed by a reference in scope: no move, assignment or `&mut` here.
    pub frozen: bool,
    /// The fields of a pair moved out so far (bit 0: `a`, bit 1: `b`).
    pub parts: u8,
    /// Declared in the innermost loop (or outside any): a field of it can move here.
    pub in_this_loop: bool,
    /// Neither moved whole nor borrowed mutably (its fields may be moved).
    pub present: bool,
    /// Declared by the user's macro `declare!`: no pattern may bind its name.
    pub declared_by_macro: bool,
}

/// Where a `break` or `continue` can go.
#[derive(Clone)]
pub(super) struct Target {
    pub label: String,
    pub is_loop: bool,
    /// Can take `break 'label value` (`loop` and labelled blocks).
    pub takes_value: bool,
    /// The type the breaks seen so far give it.
    pub ty: Option<Ty>,
    /// A `while` loop's condition is being checked: no jump to the loop from there (E0590).
    pub in_condition: bool,
    /// A counted `loop`'s break value (`if k == n { break 'l value; } k += 1;`) is being
    /// checked: a `continue` to the loop from there would skip the count and never end.
    pub in_break_value: bool,
    /// What each `break` to it had moved: those moves reach the code after it, even from a
    /// block that otherwise leaves (a `let .. else` whose `else` breaks out of a labelled block).
    pub broken_moves: Vec<Moves>,
}

/// The checker's state is also the generator's view of what is in scope.
#[derive(Clone)]
pub(super) struct Checker {
    scopes: Vec<Vec<Var>>,
    targets: Vec<Target>,
    loop_depth: usize,
    /// The number of scopes outside the innermost async block being checked: a variable
    /// of those is captured, and the block holds no `return`, `?` or jump out of it.
    async_scopes: Vec<usize>,
    /// The function returns `()`: no `return value` nor `?` in it.
    pub(super) unit: bool,
    /// How many statements that await have begun (see `Var::macro_epoch`).
    epoch: usize,
    /// The locals with a logged drop that a borrowing macro (`plain!`, `declare!`) was lent in
    /// the statement being checked: the next statement of its block must name them, or the
    /// classic lowering would lend them by value and drop them at the end of the macro's
    /// statement (the README's "Where the lowerings still differ").
    pub(super) lent_droppy: Vec<String>,
}

/// How a closure's body or a macro's tokens use a name of the enclosing code.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Access {
    /// By value, a `Copy` type (`x`, `*r`, `weigh(r)`): `Ty` is the type it must have.
    Read(Ty),
    /// A shared borrow of a `Loud` (`weigh(&v)`) or a `Buf` (`b.total()`).
    Borrow(Ty),
    /// A `u32` element of a tuple local (`v.0`).
    Element(usize),
    /// A shared borrow of a pair's field (`weigh(&v.a)`).
    Field(bool),
    /// Assigned (`x += ..`, a `u32`) or `put` into (a `Buf`): a mutable borrow.
    Mutate(Ty),
    /// Moved (`consume(v)`, in `plain!` only).
    Take,
}

/// What code the capture language is checked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Body {
    /// `plain!(..)` and `declare!(..)`: borrows (or moves, `consume(v)`) what it names.
    Plain,
    /// What is stored past the call.
    Store(Store),
    /// A closure, made and called in place (`apply(..)`) or bound by a `let` (`bound`).
    Closure(ClosureKind, bool),
}

impl Body {
    pub(super) fn awaits(self) -> bool {
        matches!(self, Body::Store(store) if store.is_future())
    }
    /// Sees the program's references (`*r`, `weigh(r)`): not what must be `'static` or owned.
    pub(super) fn reads_references(self) -> bool {
        matches!(self, Body::Plain | Body::Closure(ClosureKind::Shared | ClosureKind::Mutable, _))
            || matches!(self, Body::Closure(ClosureKind::Move, false))
    }
    /// Names parts of locals (`v.0`, `weigh(&v.a)`): closures, and a `move` closure or
    /// `async move` block stored past the call, which take the part alone (edition 2021). Not
    /// a macro (handed `v.0` at `v`'s last use, it is lent all of `v`, whose rest drops where
    /// the statement ends: the README's "Where the lowerings differ").
    pub(super) fn names_parts(self) -> bool {
        matches!(self, Body::Closure(..)) || matches!(self, Body::Store(store) if !store.is_macro())
    }
}

/// What a path has moved: each variable's whole-moved flag and moved parts.
type Moves = Vec<Vec<(bool, u8)>>;

/// The common type of two branches: `!` gives way to the other.
fn unify(a: &Ty, b: &Ty) -> Result<Ty> {
    match (a, b) {
        (Ty::Never, other) | (other, Ty::Never) => Ok(other.clone()),
        (a, b) if a == b => Ok(a.clone()),
        (a, b) => Err(format!("type mismatch: {a:?} and {b:?}")),
    }
}

impl Checker {
    pub(super) fn with_params(params: &[Param]) -> Self {
        let mut checker = Checker {
            scopes: vec![Vec::new()],
            targets: Vec::new(),
            loop_depth: 0,
            async_scopes: Vec::new(),
            unit: false,
            epoch: 0,
            lent_droppy: Vec::new(),
        };
        for param in params.iter().filter(|param| param.shape != ParamShape::Wild) {
            checker.declare(&param.name, param.ty.clone(), param.mutable);
        }
        checker
    }

    /// The variables code here can name (not hidden by a later one of the same name).
    pub(super) fn visible(&self) -> Vec<Visible> {
        let mut seen: Vec<Visible> = Vec::new();
        let mut unnameable: Vec<String> = Vec::new();
        for var in self.scopes.iter().rev().flat_map(|scope| scope.iter().rev()) {
            if seen.iter().any(|visible| visible.name == var.name) || unnameable.contains(&var.name) {
                continue;
            }
            // What a loop holds borrowed is named, but not by anything the program can name.
            if var.name.contains(' ') {
                continue;
            }
            // Nothing may name these here (nor what they hide).
            if var.gone || var.exclusive > 0 || var.macro_epoch.is_some_and(|epoch| epoch != self.epoch) {
                unnameable.push(var.name.clone());
                continue;
            }
            seen.push(Visible {
                name: var.name.clone(),
                ty: var.ty.clone(),
                movable: !var.locked
                    && (var.ty.is_copy()
                        || (!var.moved
                            && !var.behind_ref
                            && var.parts == 0
                            && var.frozen == 0
                            && var.loop_depth == self.loop_depth)),
                borrowable: !var.moved && !var.locked && var.parts == 0,
                mutable: var.mutable,
                frozen: var.frozen > 0,
                parts: var.parts,
                in_this_loop: var.loop_depth == self.loop_depth && !var.locked,
                present: !var.moved && !var.locked,
                declared_by_macro: var.macro_epoch.is_some(),
            });
        }
        seen
    }

    pub(super) fn targets(&self) -> &[Target] {
        &self.targets
    }

    pub(super) fn push_scope(&mut self) {
        self.scopes.push(Vec::new());
    }

    pub(super) fn pop_scope(&mut self) {
        // The references going out of scope release their referents.
        for var in self.scopes.pop().expect("a scope") {
            if let Some((scope, index)) = var.referent {
                if let Some(referent) = self.scopes.get_mut(scope).and_then(|scope| scope.get_mut(index)) {
                    if var.holds_exclusive {
                        referent.exclusive -= 1;
                    } else {
                        referent.frozen -= 1;
                    }
                }
            }
        }
    }

    /// Inside an async block (checked or generated): no `return`, `?` or jump out.
    pub(super) fn in_async(&self) -> bool {
        !self.async_scopes.is_empty()
    }

    /// Can `return value` and `?` leave the function from here (not in an async block, not in
    /// a function returning `()`)?
    pub(super) fn may_return(&self) -> bool {
        !self.in_async() && !self.unit
    }

    /// Into an async block: its body cannot jump to the targets outside it.
    pub(super) fn enter_async(&mut self) -> Vec<Target> {
        self.async_scopes.push(self.scopes.len());
        std::mem::take(&mut self.targets)
    }

    pub(super) fn exit_async(&mut self, targets: Vec<Target>) {
        self.async_scopes.pop();
        self.targets = targets;
    }

    /// Declared outside the innermost async block (so captured by it).
    fn captured(&self, name: &str) -> bool {
        match (self.async_scopes.last(), self.locate(name)) {
            (Some(&outside), Some((scope, _))) => scope < outside,
            _ => false,
        }
    }

    /// Is `name` declared in the innermost scope (where declaring an item of that name again
    /// is rustc's E0428)?
    pub(super) fn declared_in_this_scope(&self, name: &str) -> bool {
        self.scopes.last().is_some_and(|scope| scope.iter().any(|var| var.name == name))
    }

    /// Where the variable `name` is: its scope and position.
    fn locate(&self, name: &str) -> Option<(usize, usize)> {
        self.scopes
            .iter()
            .enumerate()
            .rev()
            .find_map(|(scope, vars)| vars.iter().rposition(|var| var.name == name).map(|index| (scope, index)))
    }

    pub(super) fn declare(&mut self, name: &str, ty: Ty, mutable: bool) {
        let (loop_depth, target_depth) = (self.loop_depth, self.targets.len());
        self.scopes.last_mut().expect("a scope").push(Var {
            name: name.to_owned(),
            ty,
            mutable,
            moved: false,
            loop_depth,
            target_depth,
            parts: 0,
            frozen: 0,
            locked: false,
            referent: None,
            behind_ref: false,
            gone: false,
            exclusive: 0,
            holds_exclusive: false,
            macro_epoch: None,
            second_taken_by_block: None,
        });
    }

    /// `self.buf`, `self.label` and `self.count`, for a method's body.
    pub(super) fn declare_receiver(&mut self) {
        for (field, ty) in [("buf", Ty::Buf), ("label", Ty::Loud), ("count", Ty::U32)] {
            self.declare(&format!("self.{field}"), ty, true);
            self.scopes.last_mut().expect("a scope").last_mut().expect("declared").behind_ref = true;
        }
    }

    fn lookup(&mut self, name: &str) -> Result<&mut Var> {
        let var = self
            .scopes
            .iter_mut()
            .rev()
            .flat_map(|scope| scope.iter_mut().rev())
            .find(|var| var.name == name)
            .ok_or_else(|| format!("`{name}` is not in scope"))?;
        if var.locked || var.exclusive > 0 {
            return Err(format!("`{name}` used while borrowed mutably"));
        }
        if var.gone {
            return Err(format!("`{name}` named after a macro took it"));
        }
        if var.macro_epoch.is_some_and(|epoch| epoch != self.epoch) {
            return Err(format!("`{name}`, declared by a macro, used after an await"));
        }
        Ok(var)
    }

    /// `&name`, kept by a `let`: the referent stays frozen while the reference is in scope.
    fn borrow_kept(&mut self, name: &str) -> Result<(Ty, (usize, usize))> {
        let place = self.locate(name).ok_or_else(|| format!("`{name}` is not in scope"))?;
        let var = self.lookup(name)?;
        if var.moved || !matches!(var.ty, Ty::U32 | Ty::Loud) {
            return Err(format!("cannot keep a borrow of `{name}`"));
        }
        Ok((Ty::Ref(Box::new(var.ty.clone())), place))
    }

    /// `for x in &name`: `name` is borrowed to the end of the current scope (the loop's).
    pub(super) fn hold(&mut self, name: &str) -> Result<()> {
        self.borrow_var(name, &Ty::Buf)?;
        let (scope, index) = self.locate(name).expect("borrowed");
        self.scopes[scope][index].frozen += 1;
        self.declare(&format!("{name} (borrowed by a loop)"), Ty::Unit, false);
        self.scopes.last_mut().expect("a scope").last_mut().expect("declared").referent = Some((scope, index));
        Ok(())
    }

    /// `&mut name` for a call: `check` runs while it is held (the call's other arguments).
    fn borrow_mut_for<T>(&mut self, name: &str, ty: &Ty, check: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let var = self.lookup(name)?;
        if var.moved || var.ty != *ty || !var.mutable || var.frozen > 0 {
            return Err(format!("cannot borrow `{name}` mutably"));
        }
        var.locked = true;
        let result = check(self);
        if let Some((scope, index)) = self.locate(name) {
            self.scopes[scope][index].locked = false;
        }
        result
    }

    /// A use by value: a move unless the type is `Copy`.
    fn use_var(&mut self, name: &str) -> Result<Ty> {
        let loop_depth = self.loop_depth;
        let var = self.lookup(name)?;
        if var.ty.is_copy() {
            return Ok(var.ty.clone());
        }
        if var.moved || var.parts != 0 {
            return Err(format!("`{name}` used after a move"));
        }
        if var.frozen > 0 || var.behind_ref {
            return Err(format!("`{name}` moved while borrowed"));
        }
        if var.loop_depth != loop_depth {
            return Err(format!("`{name}` moved inside a loop it was declared outside of"));
        }
        var.moved = true;
        Ok(var.ty.clone())
    }

    fn borrow_var(&mut self, name: &str, ty: &Ty) -> Result<()> {
        let var = self.lookup(name)?;
        if var.moved || var.parts != 0 || var.ty != *ty {
            return Err(format!("cannot borrow `{name}` as {ty:?}"));
        }
        Ok(())
    }

    /// A field of a pair local: moved out (`name.a`), or borrowed (`&name.a`).
    fn field(&mut self, name: &str, first: bool, moving: bool) -> Result<Ty> {
        let loop_depth = self.loop_depth;
        let captured = self.captured(name);
        let blocks = self.async_scopes.len();
        let var = self.lookup(name)?;
        let bit = if first { 1 } else { 2 };
        if var.ty != Ty::Duo || var.moved || var.parts & bit != 0 {
            return Err(format!("no field to use in `{name}`"));
        }
        if moving {
            if var.frozen > 0 || var.loop_depth != loop_depth {
                return Err(format!("cannot move a field out of `{name}` here"));
            }
            if captured {
                if !first {
                    var.second_taken_by_block = Some(blocks);
                } else if var.second_taken_by_block.is_some_and(|depth| depth >= blocks) {
                    return Err(format!("`{name}.a` taken after `{name}.b` by an async block"));
                }
            }
            var.parts |= bit;
        }
        Ok(Ty::Loud)
    }

    fn moved(&self) -> Moves {
        self.scopes.iter().map(|scope| scope.iter().map(|var| (var.moved, var.parts)).collect()).collect()
    }

    fn restore(&mut self, moved: &Moves) {
        for (scope, moved) in self.scopes.iter_mut().zip(moved) {
            for (var, &(moved, parts)) in scope.iter_mut().zip(moved) {
                var.moved = moved;
                var.parts = parts;
            }
        }
    }

    /// After branches: moved if moved on any of them.
    fn join(&mut self, states: &[Moves]) {
        for state in states {
            for (scope, moved) in self.scopes.iter_mut().zip(state) {
                for (var, &(moved, parts)) in scope.iter_mut().zip(moved) {
                    var.moved |= moved;
                    var.parts |= parts;
                }
            }
        }
    }

    fn scoped<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.push_scope();
        let result = f(self);
        self.pop_scope();
        result
    }

    pub(super) fn block(&mut self, block: &Block) -> Result<Ty> {
        self.scoped(|this| this.block_in_scope(block))
    }

    fn block_in_scope(&mut self, block: &Block) -> Result<Ty> {
        let mut diverges = false;
        for (index, stmt) in block.stmts.iter().enumerate() {
            diverges |= self.stmt(stmt)? == Ty::Never;
            let lent = std::mem::take(&mut self.lent_droppy);
            if !lent.is_empty() {
                named_next(stmt, block.stmts.get(index + 1), &lent)?;
            }
        }
        match &block.tail {
            Some(tail) => self.tail(tail),
            None if diverges => Ok(Ty::Never),
            None => Ok(Ty::Unit),
        }
    }

    /// A block's tail: like a statement, it ends the locals `declare!` made before if it
    /// awaits, and lends nothing a borrowing macro would drop (no statement follows it).
    pub(super) fn tail(&mut self, tail: &Expr) -> Result<Ty> {
        if awaits(tail) {
            self.epoch += 1;
        }
        let ty = self.expr(tail)?;
        if !self.lent_droppy.is_empty() {
            return Err(format!("{:?} lent to a borrowing macro in a block's tail", self.lent_droppy));
        }
        Ok(ty)
    }

    /// The statement's type, to tell whether it diverges.
    pub(super) fn stmt(&mut self, stmt: &Stmt) -> Result<Ty> {
        // A local `declare!` made is not used from here on (nor in this statement).
        if stmt_awaits(stmt) {
            self.epoch += 1;
        }
        stores_alone(stmt, &mut Vec::new())?;
        self.stmt_after_epoch(stmt)
    }

    fn stmt_after_epoch(&mut self, stmt: &Stmt) -> Result<Ty> {
        match stmt {
            // `let f = || ..;`: what the closure borrows stays borrowed while `f` is in scope.
            Stmt::Let(Pat::Bind(binding), Expr::Closure(closure)) => {
                if closure.kind == ClosureKind::Mutable && !binding.mutable {
                    return Err("a `FnMut` closure bound without `mut`".to_owned());
                }
                let holds = self.closure(closure, true)?;
                self.declare(&binding.name, Ty::Closure(closure.kind), binding.mutable);
                for (name, exclusive) in holds {
                    let (scope, index) = self.locate(&name).expect("checked");
                    let referent = &mut self.scopes[scope][index];
                    if exclusive {
                        referent.exclusive += 1;
                    } else {
                        referent.frozen += 1;
                    }
                    self.declare(&format!("{name} (held by the closure {})", binding.name), Ty::Unit, false);
                    let holder = self.scopes.last_mut().expect("a scope").last_mut().expect("declared");
                    holder.referent = Some((scope, index));
                    holder.holds_exclusive = exclusive;
                }
                Ok(Ty::Unit)
            }
            Stmt::Declare(name, value) => {
                self.captured_by(Body::Plain, |uses| capture_expr(Body::Plain, value, &[], uses))?;
                self.declare(name, Ty::U32, false);
                let epoch = self.epoch;
                self.scopes.last_mut().expect("a scope").last_mut().expect("declared").macro_epoch = Some(epoch);
                Ok(Ty::Unit)
            }
            // `let _ = place;` neither moves nor drops the place.
            Stmt::Let(Pat::Wild, Expr::Var(name)) => {
                let var = self.lookup(name)?;
                if var.moved || var.parts != 0 {
                    return Err(format!("`{name}` used after a move"));
                }
                Ok(Ty::Unit)
            }
            // `let r = &v;`: `v` stays frozen while `r` is in scope.
            Stmt::Let(Pat::Bind(binding), Expr::Borrow(name)) => {
                let (ty, (scope, index)) = self.borrow_kept(name)?;
                self.scopes[scope][index].frozen += 1;
                self.declare(&binding.name, ty, binding.mutable);
                self.scopes.last_mut().expect("a scope").last_mut().expect("declared").referent = Some((scope, index));
                Ok(Ty::Unit)
            }
            // `let r = &Loud::new(..);`: the temporary lives as long as `r`.
            Stmt::Let(Pat::Bind(binding), Expr::BorrowNew(_, extension)) => {
                match extension {
                    Extension::Field(value) => self.operand(value, &Ty::U32)?,
                    Extension::If(cond) => self.operand(cond, &Ty::Bool)?,
                    Extension::Whole | Extension::Deref | Extension::Block => {}
                }
                self.declare(&binding.name, Ty::Ref(Box::new(Ty::Loud)), binding.mutable);
                Ok(Ty::Unit)
            }
            Stmt::LetElse(binding, init, otherwise) => {
                // `let PAT = EXPR else` cannot end `EXPR` with a `}`.
                if matches!(init, Expr::If(..) | Expr::Match(..) | Expr::Block(_) | Expr::Labelled(..) | Expr::Loop(_))
                {
                    return Err("a `let .. else` initializer ending in `}`".to_owned());
                }
                self.operand(init, &Ty::Res)?;
                // The `else` block leaves: what it moves stays where the `let` goes on. But an
                // async block captures by value what any of its paths moves, a leaving one too.
                let before = self.moved();
                if self.block(otherwise)? != Ty::Never {
                    return Err("a `let .. else` block that does not diverge".to_owned());
                }
                let in_else = self.moved();
                self.restore(&before);
                if let Some(&outside) = self.async_scopes.last() {
                    let captured: Moves = in_else.into_iter().take(outside).collect();
                    self.join(&[captured]);
                }
                self.declare(&binding.name, Ty::U32, binding.mutable);
                Ok(Ty::Unit)
            }
            Stmt::Let(pat, init) => {
                let ty = self.expr(init)?;
                match (pat, &ty) {
                    (_, Ty::Never | Ty::Unit) => return Err("a `let` of `!` or `()`".to_owned()),
                    (Pat::Wild, _) => {}
                    (Pat::Bind(binding), ty) => self.declare(&binding.name, ty.clone(), binding.mutable),
                    (Pat::Tuple(items), Ty::Tuple(types)) if items.len() == types.len() => {
                        let names: Vec<&str> = items.iter().flatten().map(|binding| binding.name.as_str()).collect();
                        if names.iter().enumerate().any(|(index, name)| names[..index].contains(name)) {
                            return Err("a name bound twice in one pattern".to_owned());
                        }
                        for (item, ty) in items.iter().zip(types) {
                            if let Some(binding) = item {
                                self.declare(&binding.name, ty.clone(), binding.mutable);
                            }
                        }
                    }
                    (Pat::Tuple(_), ty) => return Err(format!("tuple pattern for {ty:?}")),
                }
                Ok(Ty::Unit)
            }
            Stmt::Assign(name, Op::Set, value) => {
                // The value is evaluated before the place; the old value, if any, drops.
                let ty = self.value(value)?;
                let target_depth = self.targets.len();
                // An async block's assignment to a captured local does not make it usable again.
                let captured = self.captured(name);
                let var = self.lookup(name)?;
                if !var.mutable
                    || var.ty != ty
                    || !matches!(ty, Ty::U32 | Ty::Loud)
                    || var.frozen > 0
                    || (captured && var.moved)
                {
                    return Err(format!("cannot assign to `{name}`"));
                }
                if var.target_depth == target_depth && !captured {
                    var.moved = false;
                }
                Ok(Ty::Unit)
            }
            Stmt::Assign(name, op, value) => {
                // The value is evaluated before the place.
                self.operand(value, &Ty::U32)?;
                let arithmetic = matches!(op, Op::Add | Op::Mul | Op::Xor | Op::BitOr | Op::BitAnd);
                let var = self.lookup(name)?;
                if !arithmetic || !var.mutable || var.ty != Ty::U32 || var.frozen > 0 {
                    return Err(format!("cannot assign to `{name}`"));
                }
                Ok(Ty::Unit)
            }
            Stmt::Expr(expr) => self.expr(expr),
            Stmt::Item(name, kind) => {
                self.declare(name, Ty::Item(*kind), false);
                Ok(Ty::Unit)
            }
        }
    }

    /// An operand of exactly this type (no coercion from `!`).
    fn operand(&mut self, expr: &Expr, ty: &Ty) -> Result<()> {
        let found = self.expr(expr)?;
        if found != *ty {
            return Err(format!("expected {ty:?}, found {found:?}"));
        }
        Ok(())
    }

    /// A value of a type that can be stored and awaited.
    fn value(&mut self, expr: &Expr) -> Result<Ty> {
        match self.expr(expr)? {
            Ty::Never | Ty::Unit => Err("a value of type `!` or `()`".to_owned()),
            ty => Ok(ty),
        }
    }

    pub(super) fn expr(&mut self, expr: &Expr) -> Result<Ty> {
        match expr {
            Expr::Lit(_) => Ok(Ty::U32),
            Expr::Bool(_) => Ok(Ty::Bool),
            Expr::Var(name) => self.use_var(name),
            Expr::LocalField(name, index) => {
                let var = self.lookup(name)?;
                if var.moved {
                    return Err(format!("`{name}.{index}` read after a move"));
                }
                match &var.ty {
                    Ty::Tuple(types) if types.get(*index) == Some(&Ty::U32) => Ok(Ty::U32),
                    other => Err(format!("`{name}.{index}` of {other:?}")),
                }
            }
            Expr::Ev(_, value) | Expr::Await(_, _, value) => self.value(value),
            Expr::ItemUse(name, kind, args) => {
                if self.lookup(name)?.ty != Ty::Item(*kind) {
                    return Err(format!("`{name}` is no {kind:?} item"));
                }
                let arity = match kind {
                    ItemKind::Const(_) => 0,
                    ItemKind::Fn | ItemKind::Struct => 1,
                    ItemKind::Use => 2,
                };
                if args.len() != arity {
                    return Err(format!("`{name}` takes {arity} arguments"));
                }
                for arg in args {
                    self.operand(arg, &Ty::U32)?;
                }
                Ok(Ty::U32)
            }
            Expr::Join(items, index) => {
                if items.len() < 2 || *index >= items.len() {
                    return Err(format!("`join!` of {} items, element {index}", items.len()));
                }
                for item in items {
                    match item {
                        Expr::Await(_, _, value) if matches!(**value, Expr::Lit(_) | Expr::Var(_)) => {
                            self.operand(value, &Ty::U32)?
                        }
                        _ => return Err("a `join!` item that is not a helper call of a literal or variable".to_owned()),
                    }
                }
                Ok(Ty::U32)
            }
            Expr::Forever(_, ty) => match ty {
                Ty::U32 | Ty::Bool | Ty::Loud | Ty::Res | Ty::Unit => Ok(ty.clone()),
                other => Err(format!("forever of {other:?}")),
            },
            Expr::Binary(op, left, right) => {
                let (operands, result) = match op {
                    Op::Add | Op::Mul | Op::Xor | Op::BitOr | Op::BitAnd => (Ty::U32, Ty::U32),
                    Op::Lt | Op::Eq => (Ty::U32, Ty::Bool),
                    Op::And | Op::Or => (Ty::Bool, Ty::Bool),
                    Op::Set => return Err("`=` as an operator".to_owned()),
                };
                self.operand(left, &operands)?;
                if matches!(op, Op::And | Op::Or) {
                    // The right side may not run: its moves count, as on a branch.
                    let before = self.moved();
                    self.operand(right, &operands)?;
                    let after = self.moved();
                    self.restore(&before);
                    self.join(&[after]);
                } else {
                    self.operand(right, &operands)?;
                }
                Ok(result)
            }
            Expr::Not(value) => {
                self.operand(value, &Ty::Bool)?;
                Ok(Ty::Bool)
            }
            Expr::Call(helper, args) => {
                let (params, result): (&[Ty], Ty) = match helper {
                    Helper::Mix => (&[Ty::U32, Ty::U32], Ty::U32),
                    Helper::Add3 => (&[Ty::U32, Ty::U32, Ty::U32], Ty::U32),
                    Helper::Consume => (&[Ty::Loud], Ty::U32),
                };
                if args.len() != params.len() {
                    return Err(format!("{helper:?} takes {} arguments", params.len()));
                }
                for (arg, ty) in args.iter().zip(params) {
                    self.operand(arg, ty)?;
                }
                Ok(result)
            }
            Expr::Note(_, value) => {
                self.operand(value, &Ty::U32)?;
                Ok(Ty::Unit)
            }
            Expr::Method(receiver, _, arg) => {
                self.operand(receiver, &Ty::U32)?;
                self.operand(arg, &Ty::U32)?;
                Ok(Ty::U32)
            }
            Expr::Weigh(name) => {
                self.borrow_var(name, &Ty::Loud)?;
                Ok(Ty::U32)
            }
            Expr::WeighNew(_) => Ok(Ty::U32),
            Expr::IsOk(name) => {
                self.borrow_var(name, &Ty::Res)?;
                Ok(Ty::Bool)
            }
            Expr::PairField(a, b, first) => {
                let a = self.value(a)?;
                let b = self.value(b)?;
                let (taken, other) = if *first { (a, b) } else { (b, a) };
                if matches!(taken, Ty::Tuple(_)) || matches!(other, Ty::Tuple(_)) {
                    return Err("a tuple in a pair".to_owned());
                }
                Ok(taken)
            }
            Expr::Tuple(items) => {
                let types = items.iter().map(|item| self.value(item)).collect::<Result<Vec<_>>>()?;
                if types.iter().any(|ty| matches!(ty, Ty::Tuple(_))) {
                    return Err("a nested tuple".to_owned());
                }
                Ok(Ty::Tuple(types))
            }
            Expr::TupleField(items, index) => {
                let Ty::Tuple(types) = self.expr(&Expr::Tuple(items.clone()))? else { unreachable!("a tuple") };
                types.get(*index).cloned().ok_or_else(|| "tuple index out of range".to_owned())
            }
            Expr::Index(items, index) => {
                if items.is_empty() {
                    return Err("an empty array".to_owned());
                }
                for item in items {
                    self.operand(item, &Ty::U32)?;
                }
                self.operand(index, &Ty::U32)?;
                Ok(Ty::U32)
            }
            Expr::Check(_, value) => {
                self.operand(value, &Ty::U32)?;
                Ok(Ty::Res)
            }
            Expr::Try(value) => {
                if !self.may_return() {
                    return Err("`?` in an async block or a unit function".to_owned());
                }
                self.operand(value, &Ty::Res)?;
                Ok(Ty::U32)
            }
            Expr::Ok(value) => {
                self.operand(value, &Ty::U32)?;
                Ok(Ty::Res)
            }
            Expr::Err(_) => Ok(Ty::Res),
            Expr::NewLoud(_) => Ok(Ty::Loud),
            Expr::If(cond, then_branch, else_branch) => {
                self.operand(cond, &Ty::Bool)?;
                let before = self.moved();
                let then_ty = self.block(then_branch)?;
                let after_then = self.moved();
                self.restore(&before);
                let ty = match else_branch {
                    Some(else_branch) => {
                        let else_ty = self.block(else_branch)?;
                        unify(&then_ty, &else_ty)?
                    }
                    None => unify(&then_ty, &Ty::Unit)?,
                };
                self.join(&[after_then]);
                Ok(ty)
            }
            Expr::Match(scrutinee, arms) => self.match_expr(scrutinee, arms),
            Expr::Block(block) => self.block(block),
            Expr::Labelled(label, block) => {
                self.enter(label, false, true, None)?;
                let body = self.block(block);
                let target = self.exit();
                let ty = body?;
                self.join(&target.broken_moves);
                match target.ty {
                    Some(broken) => unify(&ty, &broken),
                    None => Ok(ty),
                }
            }
            Expr::Loop(node) => self.loop_expr(node),
            Expr::Break(label, value) => {
                let ty = match value {
                    Some(value) => self.value(value)?,
                    None => Ty::Unit,
                };
                let index = self.target(label.as_deref(), false)?;
                let moves = self.moved();
                let target = &mut self.targets[index];
                target.broken_moves.push(moves);
                if value.is_some() && !target.takes_value {
                    return Err(format!("`break` with a value out of `'{}`", target.label));
                }
                target.ty = Some(match &target.ty {
                    Some(known) => unify(known, &ty)?,
                    None => ty,
                });
                Ok(Ty::Never)
            }
            Expr::Continue(label) => {
                self.target(label.as_deref(), true)?;
                Ok(Ty::Never)
            }
            Expr::Return(value) => {
                if !self.may_return() {
                    return Err("`return` in an async block or a unit function".to_owned());
                }
                self.operand(value, &Ty::Res)?;
                Ok(Ty::Never)
            }
            Expr::Borrow(name) => Ok(self.borrow_kept(name)?.0),
            Expr::Deref(name) => match &self.lookup(name)?.ty {
                Ty::Ref(inner) if **inner == Ty::U32 => Ok(Ty::U32),
                other => Err(format!("`*{name}` of {other:?}")),
            },
            Expr::WeighRef(name, _) => match &self.lookup(name)?.ty {
                Ty::Ref(inner) if **inner == Ty::Loud => Ok(Ty::U32),
                other => Err(format!("`weigh({name})` of {other:?}")),
            },
            Expr::WeighLater(name) => {
                self.borrow_var(name, &Ty::Loud)?;
                Ok(Ty::U32)
            }
            Expr::NewBuf(_) => Ok(Ty::Buf),
            Expr::Fill(name, value) | Expr::PushLater(name, value) => {
                self.borrow_mut_for(name, &Ty::Buf, |this| this.operand(value, &Ty::U32))?;
                Ok(Ty::U32)
            }
            Expr::FillNew(_, value) => {
                self.operand(value, &Ty::U32)?;
                Ok(Ty::U32)
            }
            Expr::Total(name) => {
                self.borrow_var(name, &Ty::Buf)?;
                Ok(Ty::U32)
            }
            Expr::NewDuo(..) => Ok(Ty::Duo),
            Expr::MoveField(name, first) => self.field(name, *first, true),
            Expr::PairShorthand(b) => {
                // The fields in the order written: the shorthand first.
                let ty = self.use_var(SHORTHAND_LOCAL)?;
                if ty != Ty::Loud {
                    return Err(format!("a shorthand field of {ty:?}"));
                }
                self.operand(b, &Ty::Loud)?;
                Ok(Ty::Loud)
            }
            Expr::PairUpdate(a, base) => {
                self.operand(a, &Ty::Loud)?;
                // (Only `b` is taken from the base: `a` may have moved out before.)
                self.field(base, false, true)
            }
            Expr::UpperLater(_, source) => {
                if let Some(name) = source {
                    self.borrow_var(name, &Ty::Loud)?;
                }
                Ok(Ty::U32)
            }
            Expr::WeighAll(_, sources) => {
                for name in sources.iter().flatten() {
                    self.borrow_var(name, &Ty::Loud)?;
                }
                Ok(Ty::U32)
            }
            Expr::WeighField(name, first) => {
                self.field(name, *first, false)?;
                Ok(Ty::U32)
            }
            Expr::AsyncBlock(block) => {
                let targets = self.enter_async();
                let ty = self.block(block);
                self.exit_async(targets);
                match ty? {
                    Ty::U32 => Ok(Ty::U32),
                    other => Err(format!("an async block of {other:?}")),
                }
            }
            Expr::Panic(_, value, _) => {
                self.operand(value, &Ty::U32)?;
                Ok(Ty::Never)
            }
            Expr::Event(event) => self.event(event),
            Expr::IntoLen(name, _) => {
                self.consumed(name)?;
                Ok(Ty::U32)
            }
            // The receiver moves into the call before the argument is evaluated.
            Expr::SpendLater(name, form, value) => {
                // A method's argument that awaits would see the receiver moved late (the
                // README's "Where the lowerings still differ"): not drawn.
                if *form == CallForm::Method && !simple_u32(value, false) {
                    return Err("a consuming method's argument that is not simple".to_owned());
                }
                self.consumed(name)?;
                self.operand(value, &Ty::U32)?;
                Ok(Ty::U32)
            }
            Expr::BorrowNew(..) => Err("`&Loud::new(..)` outside a `let`".to_owned()),
            Expr::Plain(value) => {
                self.captured_by(Body::Plain, |uses| capture_expr(Body::Plain, value, &[], uses))?;
                Ok(Ty::U32)
            }
            Expr::Closure(_) => Err("a closure that no `let` binds".to_owned()),
            Expr::Apply(closure) => {
                self.closure(closure, false)?;
                Ok(Ty::U32)
            }
            Expr::CallClosure(name) => {
                let var = self.lookup(name)?;
                match var.ty {
                    Ty::Closure(ClosureKind::Mutable) if !var.mutable => {
                        Err(format!("`{name}()` of a `FnMut` not `mut`"))
                    }
                    Ty::Closure(_) => Ok(Ty::U32),
                    _ => Err(format!("`{name}()` of no closure")),
                }
            }
            Expr::Put(..) => Err("`put` outside a closure".to_owned()),
            Expr::Store(store, body) => {
                // Lent a reference bounded by the async block's run (`places.rs`), which
                // the stored closure would outlive: rustc's error under the classic lowering.
                if store.is_macro() && self.in_async() {
                    return Err("a macro's closure or future stored from inside an async block".to_owned());
                }
                let kind = Body::Store(*store);
                self.captured_by(kind, |uses| capture_block(kind, body, uses))?;
                Ok(Ty::Unit)
            }
            Expr::SelfBump(value) => {
                // `&mut *self` for the call: no field of `self` may be borrowed now, and the
                // argument (evaluated under the two-phase borrow) reads nothing of it.
                for field in ["self.buf", "self.label", "self.count"] {
                    let var = self.lookup(field)?;
                    if var.frozen > 0 {
                        return Err(format!("`self.bump(..)` while `{field}` is borrowed"));
                    }
                }
                if !simple_u32(value, true) || mentions_self(value) {
                    return Err("`self.bump(..)` of an argument that is not a simple `u32`".to_owned());
                }
                self.operand(value, &Ty::U32)?;
                Ok(Ty::U32)
            }
        }
    }

    /// A closure's body checked, and what it captures applied; for a bound one (a `let`),
    /// the names it keeps borrowed (`true`: mutably).
    fn closure(&mut self, closure: &Closure, bound: bool) -> Result<Vec<(String, bool)>> {
        let kind = Body::Closure(closure.kind, bound);
        self.captured_by(kind, |uses| capture_block(kind, &closure.body, uses))
    }

    /// Code of the capture language (`walk` lists what it names of the enclosing code, in
    /// order), checked against what is in scope, and its captures applied as `body` captures:
    /// borrowed, moved, or taken for good (a macro's `move` closure or `async move` block is
    /// the last use of all it names). The names a bound closure keeps borrowed.
    fn captured_by(
        &mut self,
        body: Body,
        walk: impl FnOnce(&mut Vec<(String, Access)>) -> Result<()>,
    ) -> Result<Vec<(String, bool)>> {
        let mut uses = Vec::new();
        walk(&mut uses)?;
        let loop_depth = self.loop_depth;
        for (name, access) in &uses {
            if name.contains('.') || name.contains(' ') {
                return Err(format!("`{name}` named in a closure or macro"));
            }
            let var = self.lookup(name)?;
            let fits = match access {
                Access::Read(ty) => var.ty == *ty,
                Access::Borrow(ty) => var.ty == *ty && !var.moved && var.parts == 0,
                Access::Element(index) => {
                    !var.moved && matches!(&var.ty, Ty::Tuple(types) if types.get(*index) == Some(&Ty::U32))
                }
                Access::Field(first) => var.ty == Ty::Duo && !var.moved && var.parts & if *first { 1 } else { 2 } == 0,
                Access::Mutate(ty) => var.ty == *ty && var.mutable && !var.moved && var.frozen == 0,
                Access::Take => var.ty == Ty::Loud,
            };
            if !fits {
                return Err(format!("`{name}` cannot be {access:?} in {body:?}"));
            }
            if let Body::Store(store) = body {
                if store.is_macro() && (var.loop_depth != loop_depth || var.frozen > 0 || var.behind_ref) {
                    return Err(format!("`{name}` taken by a macro where it is not its last use"));
                }
            }
        }
        let mut names: Vec<&String> = Vec::new();
        for (name, _) in &uses {
            if !names.contains(&name) {
                names.push(name);
            }
        }
        let whole =
            |name: &String| uses.iter().any(|(used, access)| used == name && matches!(access, Access::Borrow(_)));
        let mut holds = Vec::new();
        match body {
            Body::Plain => {
                for (name, access) in &uses {
                    match access {
                        Access::Take => {
                            // Lent by value only at its last use (as `keep!` takes: see
                            // `stores_alone`), and not inside an async block.
                            if self.in_async() {
                                return Err(format!("`{name}` moved by a macro inside an async block"));
                            }
                            self.use_var(name)?;
                            let (scope, index) = self.locate(name).expect("looked up");
                            self.scopes[scope][index].gone = true;
                        }
                        Access::Borrow(_) if !uses.contains(&(name.clone(), Access::Take)) => {
                            if !self.lent_droppy.contains(name) {
                                self.lent_droppy.push(name.clone());
                            }
                        }
                        _ => {}
                    }
                }
            }
            Body::Store(store) if store.is_macro() => {
                for name in names {
                    if whole(name) {
                        self.use_var(name)?;
                    }
                    let (scope, index) = self.locate(name).expect("looked up");
                    self.scopes[scope][index].gone = true;
                }
            }
            Body::Store(_) | Body::Closure(ClosureKind::Move, false) => {
                for name in names {
                    if whole(name) {
                        // An async block around it must take it too, which the classic
                        // lowering does not see (it borrows it, and drops it late: a bug the
                        // fuzzer found, `docs/fuzzer.md`).
                        if self.captured(name) {
                            return Err(format!("`{name}` moved by a closure inside an async block"));
                        }
                        self.use_var(name)?;
                    }
                }
                let mut second_taken: Vec<&String> = Vec::new();
                for (name, access) in &uses {
                    if let Access::Field(first) = access {
                        if !whole(name) {
                            // Dropped unrun, it would drop `b` first under classic (see
                            // `Var::second_taken_by_block`).
                            if *first && second_taken.contains(&name) {
                                return Err(format!("`{name}.a` taken after `{name}.b` by {body:?}"));
                            }
                            if !*first {
                                second_taken.push(name);
                            }
                            self.field(name, *first, true)?;
                        }
                    }
                }
            }
            Body::Closure(ClosureKind::Move, true) => {
                // It owns only `Copy` values: the README's "Closures called before an await"
                // (one that owns a value with a destructor and uses a capture by value drops
                // at the next suspension after its last call) is not drawn.
                if uses.iter().any(|(_, access)| !matches!(access, Access::Read(Ty::U32) | Access::Element(_))) {
                    return Err("a bound `move` closure that owns more than `Copy` values".to_owned());
                }
            }
            Body::Closure(_, false) => {}
            Body::Closure(_, true) => {
                for name in names {
                    let exclusive =
                        uses.iter().any(|(used, access)| used == name && matches!(access, Access::Mutate(_)));
                    holds.push((name.clone(), exclusive));
                }
            }
        }
        Ok(holds)
    }

    /// A `Loud` used by value by a consuming method.
    fn consumed(&mut self, name: &str) -> Result<()> {
        if self.lookup(name)?.ty != Ty::Loud {
            return Err(format!("`{name}` consumed but not a `Loud`"));
        }
        self.use_var(name).map(drop)
    }

    /// An event borrows what its fields and message name, and evaluates their values (which
    /// never await: a macro the lowering does not know is left as written).
    fn event(&mut self, event: &Event) -> Result<Ty> {
        if event.fields.is_empty() && event.message.is_none() {
            return Err("an event without fields or message".to_owned());
        }
        for field in &event.fields {
            match field {
                Field::Debug(name) | Field::Bare(name) => self.borrow_named(name, &[Ty::U32, Ty::Loud, Ty::Res])?,
                Field::Display(name) => self.borrow_named(name, &[Ty::U32])?,
                Field::Part(name, first) => {
                    self.field(name, *first, false)?;
                }
                Field::Named(_, _, value) => {
                    if !simple_u32(value, false) {
                        return Err("an event field's value that awaits or is not simple".to_owned());
                    }
                    self.operand(value, &Ty::U32)?;
                }
            }
        }
        if let Some(message) = &event.message {
            for (name, debug) in &message.captures {
                self.borrow_named(name, if *debug { &[Ty::Loud] } else { &[Ty::U32] })?;
            }
            if let Some(arg) = &message.arg {
                if !simple_u32(arg, false) {
                    return Err("an event message argument that awaits or is not simple".to_owned());
                }
                self.operand(arg, &Ty::U32)?;
            }
        }
        Ok(Ty::Unit)
    }

    /// A local named in a macro (no field of `self`: the macro's grammar takes an identifier).
    fn borrow_named(&mut self, name: &str, types: &[Ty]) -> Result<()> {
        if name.contains('.') {
            return Err(format!("`{name}` named in an event"));
        }
        let ty = self.lookup(name)?.ty.clone();
        if !types.contains(&ty) {
            return Err(format!("`{name}` of {ty:?} in an event"));
        }
        self.borrow_var(name, &ty)
    }

    fn match_expr(&mut self, scrutinee: &Expr, arms: &[Arm]) -> Result<Ty> {
        let scrutinee_ty = self.value(scrutinee)?;
        // A guarded arm covers nothing for exhaustiveness.
        let unguarded = || arms.iter().filter(|arm| arm.guard.is_none());
        let exhaustive = match scrutinee_ty {
            Ty::U32 => unguarded().any(|arm| matches!(arm.pat, ArmPat::Bind(_) | ArmPat::Wild)),
            Ty::Res => {
                unguarded().any(|arm| matches!(arm.pat, ArmPat::Wild))
                    || (unguarded().any(|arm| matches!(arm.pat, ArmPat::Ok(_)))
                        && unguarded().any(|arm| matches!(arm.pat, ArmPat::Err)))
            }
            _ => false,
        };
        if !exhaustive {
            return Err("a match that is not exhaustive".to_owned());
        }
        let before = self.moved();
        let mut states = Vec::new();
        let mut ty = Ty::Never;
        for arm in arms {
            self.restore(&before);
            let arm_ty = self.scoped(|this| {
                match (&arm.pat, &scrutinee_ty) {
                    (ArmPat::Lit(_) | ArmPat::Either(..) | ArmPat::Wild, Ty::U32)
                    | (ArmPat::Wild | ArmPat::Err, Ty::Res) => {}
                    (ArmPat::Bind(name), Ty::U32) | (ArmPat::Ok(name), Ty::Res) => this.declare(name, Ty::U32, false),
                    (pat, ty) => return Err(format!("pattern {pat:?} for {ty:?}")),
                }
                if let Some(guard) = &arm.guard {
                    // Evaluated whether or not the arm is taken: it must move nothing.
                    let moved = this.moved();
                    this.operand(guard, &Ty::Bool)?;
                    if this.moved() != moved {
                        return Err("a match guard that moves".to_owned());
                    }
                }
                this.expr(&arm.body)
            })?;
            ty = unify(&ty, &arm_ty)?;
            states.push(self.moved());
        }
        self.restore(&before);
        self.join(&states);
        Ok(ty)
    }

    /// Into a loop or labelled block (a loop's body is one loop deeper).
    pub(super) fn enter(&mut self, label: &str, is_loop: bool, takes_value: bool, ty: Option<Ty>) -> Result<()> {
        if self.targets.iter().any(|target| target.label == label) {
            return Err(format!("label `'{label}` shadows another"));
        }
        self.targets.push(Target {
            label: label.to_owned(),
            is_loop,
            takes_value,
            ty,
            in_condition: false,
            in_break_value: false,
            broken_moves: Vec::new(),
        });
        if is_loop {
            self.loop_depth += 1;
        }
        Ok(())
    }

    /// Into or out of the condition of the innermost loop (a `while`).
    pub(super) fn in_condition(&mut self, inside: bool) {
        self.targets.last_mut().expect("entered").in_condition = inside;
    }

    /// Into or out of the break value of the innermost loop (a counted `loop`).
    pub(super) fn in_break_value(&mut self, inside: bool) {
        self.targets.last_mut().expect("entered").in_break_value = inside;
    }

    pub(super) fn exit(&mut self) -> Target {
        let target = self.targets.pop().expect("entered");
        if target.is_loop {
            self.loop_depth -= 1;
        }
        target
    }

    /// The target of a `break`/`continue`. An unlabelled one inside a labelled block (not in
    /// a loop inside it) is E0695.
    fn target(&self, label: Option<&str>, is_continue: bool) -> Result<usize> {
        let index = match label {
            Some(label) => self.targets.iter().rposition(|target| target.label == label),
            None => match self.targets.last() {
                Some(target) if !target.is_loop => return Err("unlabelled `break` in a labelled block".to_owned()),
                Some(_) => Some(self.targets.len() - 1),
                None => None,
            },
        };
        let index = index.ok_or_else(|| format!("no target for `break`/`continue` {label:?}"))?;
        if self.targets[index].in_condition {
            return Err("a jump out of a `while` condition".to_owned());
        }
        if is_continue && !self.targets[index].is_loop {
            return Err("`continue` to a labelled block".to_owned());
        }
        if is_continue && self.targets[index].in_break_value {
            return Err("a `continue` from a counted loop's break value (it would never end)".to_owned());
        }
        Ok(index)
    }

    fn loop_expr(&mut self, node: &Loop) -> Result<Ty> {
        let before = self.moved();
        let ty = self.scoped(|this| {
            let value_ty = match &node.kind {
                LoopKind::Loop { counter, default, .. } => {
                    this.declare(counter, Ty::U32, true);
                    Some(if default.is_some() { Ty::U32 } else { Ty::Unit })
                }
                LoopKind::While { counter, .. } => {
                    this.declare(counter, Ty::U32, true);
                    None
                }
                // Evaluated once, before the loop.
                LoopKind::Range { end, .. } => {
                    this.operand(end, &Ty::U32)?;
                    None
                }
                LoopKind::Louds { labels, .. } => {
                    if labels.is_empty() {
                        return Err("an empty array of `Loud`s".to_owned());
                    }
                    None
                }
                // Borrowed for the whole loop (released when the loop's scope ends).
                LoopKind::OverBuf { buf, .. } => {
                    this.hold(buf)?;
                    None
                }
            };
            this.enter(&node.label, true, matches!(node.kind, LoopKind::Loop { .. }), value_ty)?;
            let result = this.scoped(|this| {
                match &node.kind {
                    LoopKind::Loop { default: Some(default), .. } => {
                        this.in_break_value(true);
                        let default = this.operand(default, &Ty::U32);
                        this.in_break_value(false);
                        default?
                    }
                    LoopKind::While { cond, .. } => {
                        this.in_condition(true);
                        let cond = this.operand(cond, &Ty::Bool);
                        this.in_condition(false);
                        cond?
                    }
                    LoopKind::Range { name, .. } => this.declare(name, Ty::U32, false),
                    LoopKind::Louds { name, .. } => this.declare(name, Ty::Loud, false),
                    LoopKind::OverBuf { name, .. } => this.declare(name, Ty::Ref(Box::new(Ty::U32)), false),
                    LoopKind::Loop { default: None, .. } => {}
                }
                let body = this.block(&node.body)?;
                unify(&body, &Ty::Unit).map(drop)
            });
            let target = this.exit();
            result?;
            Ok(target.ty.unwrap_or(Ty::Unit))
        })?;
        // Nothing declared outside moves inside; what the loop's head evaluated may have.
        let after = self.moved();
        self.restore(&before);
        self.join(&[after]);
        Ok(ty)
    }
}

/// The capture language (see `ast::Closure`): a block of it, for `body`.
fn capture_block(body: Body, block: &Block, uses: &mut Vec<(String, Access)>) -> Result<()> {
    let mut inner: Vec<String> = Vec::new();
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let(Pat::Bind(binding), value) if body.awaits() && !binding.mutable => {
                capture_expr(body, value, &inner, uses)?;
                // Its own names: no name of the enclosing code is hidden.
                if inner.contains(&binding.name) || uses.iter().any(|(name, _)| *name == binding.name) {
                    return Err(format!("`{}` bound twice in a body", binding.name));
                }
                inner.push(binding.name.clone());
            }
            Stmt::Expr(Expr::Note(_, value)) if body.awaits() => capture_expr(body, value, &inner, uses)?,
            Stmt::Assign(name, op, value) if matches!(body, Body::Closure(ClosureKind::Mutable, _)) => {
                if !matches!(op, Op::Add | Op::Mul | Op::Xor | Op::BitOr | Op::BitAnd | Op::Set) {
                    return Err(format!("`{name} {op:?}=`"));
                }
                capture_expr(body, value, &inner, uses)?;
                if inner.contains(name) {
                    return Err(format!("`{name}` assigned in a body that binds it"));
                }
                uses.push((name.clone(), Access::Mutate(Ty::U32)));
            }
            other => return Err(format!("{other:?} is not a statement of the capture language of {body:?}")),
        }
    }
    match &block.tail {
        Some(tail) => capture_expr(body, tail, &inner, uses),
        None => Err(format!("a body of {body:?} without a value")),
    }
}

/// A `u32` expression of the capture language: the names of the enclosing code it uses (not
/// `inner`, the body's own `let`s), in order.
fn capture_expr(body: Body, expr: &Expr, inner: &[String], uses: &mut Vec<(String, Access)>) -> Result<()> {
    let mut name = |name: &String, access: Access| {
        if inner.contains(name) {
            return if access == Access::Read(Ty::U32) {
                Ok(())
            } else {
                Err(format!("`{name}`, a body's own `u32`, used as {access:?}"))
            };
        }
        uses.push((name.clone(), access));
        Ok(())
    };
    match expr {
        Expr::Lit(_) => Ok(()),
        Expr::Var(var) => name(var, Access::Read(Ty::U32)),
        Expr::Weigh(var) => name(var, Access::Borrow(Ty::Loud)),
        Expr::Total(var) => name(var, Access::Borrow(Ty::Buf)),
        Expr::Deref(var) if body.reads_references() => name(var, Access::Read(Ty::Ref(Box::new(Ty::U32)))),
        Expr::WeighRef(var, false) if body.reads_references() => name(var, Access::Read(Ty::Ref(Box::new(Ty::Loud)))),
        Expr::LocalField(var, index) if body.names_parts() => name(var, Access::Element(*index)),
        Expr::WeighField(var, first) if body.names_parts() => name(var, Access::Field(*first)),
        Expr::WeighLater(var) if body.awaits() => name(var, Access::Borrow(Ty::Loud)),
        Expr::Call(Helper::Consume, args) if body == Body::Plain => match args.as_slice() {
            [Expr::Var(var)] => name(var, Access::Take),
            _ => Err("`consume` of what is not a local, in a macro".to_owned()),
        },
        Expr::Ev(_, value) => capture_expr(body, value, inner, uses),
        Expr::Await(_, _, value) if body.awaits() => capture_expr(body, value, inner, uses),
        Expr::Put(var, value) if matches!(body, Body::Closure(ClosureKind::Mutable, _)) => {
            // The receiver is borrowed (two-phase) before the argument runs.
            name(var, Access::Mutate(Ty::Buf))?;
            capture_expr(body, value, inner, uses)
        }
        Expr::Binary(Op::Add | Op::Mul | Op::Xor | Op::BitOr | Op::BitAnd, left, right) => {
            capture_expr(body, left, inner, uses)?;
            capture_expr(body, right, inner, uses)
        }
        Expr::Call(helper @ (Helper::Mix | Helper::Add3), args) => {
            if args.len() != if *helper == Helper::Mix { 2 } else { 3 } {
                return Err(format!("{helper:?} of {} arguments", args.len()));
            }
            args.iter().try_for_each(|arg| capture_expr(body, arg, inner, uses))
        }
        other => Err(format!("{other:?} is not in the capture language of {body:?}")),
    }
}

/// A macro's `move` closure or `async move` block takes what it names only where the macro is
/// a statement of its own whose enclosing statements (`frames`, each the names it mentions
/// outside the statements of its blocks) name none of it: the classic lowering lends a local
/// by value only where nothing else in the macro's statement names it, and otherwise a
/// reference bounded by the current run, which a stored closure outlives (rustc's error; a
/// `match` on the local whose guard awaits is one such statement). Checked for the stores
/// inside `stmt`.
fn stores_alone(stmt: &Stmt, frames: &mut Vec<Vec<String>>) -> Result<()> {
    if let Stmt::Expr(Expr::Store(store, body)) = stmt {
        if store.is_macro() {
            let taken = names_in_stmt(&Stmt::Expr(Expr::Block(body.clone())));
            if let Some(name) = taken.iter().find(|name| frames.iter().any(|frame| frame.contains(name))) {
                return Err(format!("`{name}` taken by a macro in a statement that names it elsewhere"));
            }
            return Ok(());
        }
    }
    let mut frame = Vec::new();
    if let Stmt::Assign(name, ..) = stmt {
        frame.push(name.clone());
    }
    let exprs: Vec<&Expr> = match stmt {
        Stmt::Let(_, expr) | Stmt::Assign(_, _, expr) | Stmt::Expr(expr) | Stmt::Declare(_, expr) => vec![expr],
        Stmt::LetElse(_, init, _) => vec![init],
        Stmt::Item(..) => Vec::new(),
    };
    for expr in &exprs {
        frame_names(expr, &mut frame);
    }
    // `plain!(.. consume(v) ..)` takes `v` too: nothing else in its statement (the innermost,
    // whose frame holds the macro's own mentions), nor in those around it, may name `v`.
    let mut plains: Vec<&Expr> = Vec::new();
    for expr in &exprs {
        frame_plains(expr, &mut plains);
    }
    if let Stmt::Declare(_, value) = stmt {
        plains.push(value);
    }
    for plain in plains {
        let named = names_in_stmt(&Stmt::Expr(plain.clone()));
        let mut taken: Vec<String> = Vec::new();
        visit_expr(plain, &mut |node| {
            if let Node::Expr(Expr::Call(Helper::Consume, args)) = node {
                if let [Expr::Var(name)] = args.as_slice() {
                    taken.push(name.clone());
                }
            }
        });
        for name in taken {
            let own = named.iter().filter(|named| **named == name).count();
            let around: usize = frames
                .iter()
                .chain(std::iter::once(&frame))
                .map(|frame| frame.iter().filter(|named| **named == name).count())
                .sum();
            if around > own {
                return Err(format!("`{name}` moved by a macro in a statement that names it elsewhere"));
            }
        }
    }
    frames.push(frame);
    let mut result = exprs.iter().try_for_each(|expr| stores_alone_in(expr, frames));
    if let (Ok(()), Stmt::LetElse(_, _, otherwise)) = (&result, stmt) {
        result = stores_alone_in_block(otherwise, frames);
    }
    frames.pop();
    result
}

fn stores_alone_in_block(block: &Block, frames: &mut Vec<Vec<String>>) -> Result<()> {
    block.stmts.iter().try_for_each(|stmt| stores_alone(stmt, frames))?;
    block.tail.as_deref().map_or(Ok(()), |tail| stores_alone_in(tail, frames))
}

fn stores_alone_in(expr: &Expr, frames: &mut Vec<Vec<String>>) -> Result<()> {
    if let Expr::Store(store, _) = expr {
        if store.is_macro() {
            return Err("a macro's store that is not a statement of its own".to_owned());
        }
    }
    for child in children(expr) {
        stores_alone_in(child, frames)?;
    }
    if let Expr::Match(_, arms) = expr {
        for guard in arms.iter().filter_map(|arm| arm.guard.as_ref()) {
            stores_alone_in(guard, frames)?;
        }
    }
    blocks(expr).into_iter().try_for_each(|block| stores_alone_in_block(block, frames))
}

/// The `plain!(..)`s of a statement's expression outside the statements of its blocks.
fn frame_plains<'a>(expr: &'a Expr, out: &mut Vec<&'a Expr>) {
    if let Expr::Plain(_) = expr {
        out.push(expr);
        return;
    }
    for child in children(expr) {
        frame_plains(child, out);
    }
    if let Expr::Match(_, arms) = expr {
        for guard in arms.iter().filter_map(|arm| arm.guard.as_ref()) {
            frame_plains(guard, out);
        }
    }
    for block in blocks(expr) {
        if let Some(tail) = &block.tail {
            frame_plains(tail, out);
        }
    }
}

/// The names a statement's expression mentions outside the statements of its blocks (their
/// values count: a block's tail is part of the statement).
fn frame_names(expr: &Expr, out: &mut Vec<String>) {
    out.extend(own_names(expr));
    for child in children(expr) {
        frame_names(child, out);
    }
    if let Expr::Match(_, arms) = expr {
        for guard in arms.iter().filter_map(|arm| arm.guard.as_ref()) {
            frame_names(guard, out);
        }
    }
    for block in blocks(expr) {
        if let Some(tail) = &block.tail {
            frame_names(tail, out);
        }
    }
}

/// A statement that lent locals with a logged drop to a borrowing macro (`plain!`,
/// `declare!`) must be that macro's statement alone, and the next statement of its block must
/// name each of them, so that the macro is no last use of theirs.
fn named_next(stmt: &Stmt, next: Option<&Stmt>, lent: &[String]) -> Result<()> {
    let alone = match stmt {
        Stmt::Expr(Expr::Note(_, value)) => matches!(**value, Expr::Plain(_)),
        Stmt::Let(Pat::Bind(_), value) => matches!(value, Expr::Plain(_)),
        Stmt::Declare(..) => true,
        _ => false,
    };
    if !alone {
        return Err(format!("{lent:?} lent to a borrowing macro inside a larger statement"));
    }
    let named = next.map(names_in_stmt).unwrap_or_default();
    match lent.iter().find(|name| !named.contains(name)) {
        Some(name) => Err(format!("`{name}` lent to a borrowing macro at its last use")),
        None => Ok(()),
    }
}

/// The locals `declare!` makes: each name its own, bound by no pattern of the function (the
/// lowering tells them by that).
fn declared_by_macros(program: &Program) -> Result<()> {
    let mut bound: Vec<String> = program.params.iter().map(|param| param.name.clone()).collect();
    let mut declared: Vec<String> = Vec::new();
    let mut twice = None;
    // A statement macro handed a pattern parameter's binding (`(p, _): (u32, Loud)`): the
    // classic lowering takes it for a local the macro declares, and refuses its use after an
    // await (a bug the fuzzer found: `docs/fuzzer.md`).
    let patterns: Vec<&str> = program
        .params
        .iter()
        .filter(|param| param.shape == ParamShape::WithWild)
        .map(|param| param.name.as_str())
        .collect();
    let mut handed = None;
    visit_block(&program.body, &mut |node| {
        if let Node::Stmt(stmt @ (Stmt::Declare(..) | Stmt::Expr(Expr::Plain(_)))) = node {
            handed = handed.take().or(names_in_stmt(stmt).into_iter().find(|name| patterns.contains(&name.as_str())));
        }
    });
    if let Some(name) = handed {
        return Err(format!("the pattern parameter `{name}` handed to a statement macro"));
    }
    visit_block(&program.body, &mut |node| match node {
        Node::Stmt(Stmt::Let(pat, _)) => match pat {
            Pat::Bind(binding) => bound.push(binding.name.clone()),
            Pat::Tuple(items) => bound.extend(items.iter().flatten().map(|binding| binding.name.clone())),
            Pat::Wild => {}
        },
        Node::Stmt(Stmt::LetElse(binding, ..)) => bound.push(binding.name.clone()),
        Node::Stmt(Stmt::Declare(name, _)) => {
            if declared.contains(name) {
                twice = Some(name.clone());
            }
            declared.push(name.clone());
        }
        Node::Expr(Expr::Match(_, arms)) => bound.extend(arms.iter().filter_map(|arm| match &arm.pat {
            ArmPat::Bind(name) | ArmPat::Ok(name) => Some(name.clone()),
            _ => None,
        })),
        Node::Expr(Expr::Loop(node)) => match &node.kind {
            LoopKind::Loop { counter, .. } | LoopKind::While { counter, .. } => bound.push(counter.clone()),
            LoopKind::Range { name, .. } | LoopKind::Louds { name, .. } | LoopKind::OverBuf { name, .. } => {
                bound.push(name.clone())
            }
        },
        _ => {}
    });
    if let Some(name) = twice {
        return Err(format!("`{name}` declared by two macros"));
    }
    match declared.iter().find(|name| bound.contains(name)) {
        Some(name) => Err(format!("`{name}`, declared by a macro, is bound by a pattern too")),
        None => Ok(()),
    }
}

/// A `u32` operand simple enough for a macro's argument or a call under a two-phase borrow: a
/// literal, a variable, `ev(..)` of one, or (`awaits`) a helper awaited on one.
pub(super) fn simple_u32(expr: &Expr, awaits: bool) -> bool {
    match expr {
        Expr::Lit(_) | Expr::Var(_) => true,
        Expr::Ev(_, value) => matches!(**value, Expr::Lit(_) | Expr::Var(_)),
        Expr::Await(_, _, value) => awaits && matches!(**value, Expr::Lit(_) | Expr::Var(_)),
        _ => false,
    }
}

fn mentions_self(expr: &Expr) -> bool {
    match expr {
        Expr::Var(name) => name.starts_with("self."),
        Expr::Ev(_, value) | Expr::Await(_, _, value) => mentions_self(value),
        _ => false,
    }
}
