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
    let ty = checker.block(&program.body)?;
    unify(&ty, &Ty::Res).map(drop)
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
}

/// A variable as code at the current point sees it.
pub(super) struct Visible {
    pub name: String,
    pub ty: Ty,
    /// Can be used by value here.
    pub movable: bool,
    pub borrowable: bool,
    pub mutable: bool,
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
}

/// The checker's state is also the generator's view of what is in scope.
#[derive(Clone)]
pub(super) struct Checker {
    scopes: Vec<Vec<Var>>,
    targets: Vec<Target>,
    loop_depth: usize,
}

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
        let mut checker = Checker { scopes: vec![Vec::new()], targets: Vec::new(), loop_depth: 0 };
        for param in params {
            checker.declare(&param.name, param.ty.clone(), param.mutable);
        }
        checker
    }

    /// The variables code here can name (not hidden by a later one of the same name).
    pub(super) fn visible(&self) -> Vec<Visible> {
        let mut seen: Vec<Visible> = Vec::new();
        for var in self.scopes.iter().rev().flat_map(|scope| scope.iter().rev()) {
            if seen.iter().any(|visible| visible.name == var.name) {
                continue;
            }
            seen.push(Visible {
                name: var.name.clone(),
                ty: var.ty.clone(),
                movable: var.ty.is_copy() || (!var.moved && var.loop_depth == self.loop_depth),
                borrowable: !var.moved,
                mutable: var.mutable,
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
        self.scopes.pop();
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
        });
    }

    fn lookup(&mut self, name: &str) -> Result<&mut Var> {
        self.scopes
            .iter_mut()
            .rev()
            .flat_map(|scope| scope.iter_mut().rev())
            .find(|var| var.name == name)
            .ok_or_else(|| format!("`{name}` is not in scope"))
    }

    /// A use by value: a move unless the type is `Copy`.
    fn use_var(&mut self, name: &str) -> Result<Ty> {
        let loop_depth = self.loop_depth;
        let var = self.lookup(name)?;
        if var.ty.is_copy() {
            return Ok(var.ty.clone());
        }
        if var.moved {
            return Err(format!("`{name}` used after a move"));
        }
        if var.loop_depth != loop_depth {
            return Err(format!("`{name}` moved inside a loop it was declared outside of"));
        }
        var.moved = true;
        Ok(var.ty.clone())
    }

    fn borrow_var(&mut self, name: &str, ty: &Ty) -> Result<()> {
        let var = self.lookup(name)?;
        if var.moved || var.ty != *ty {
            return Err(format!("cannot borrow `{name}` as {ty:?}"));
        }
        Ok(())
    }

    fn moved(&self) -> Vec<Vec<bool>> {
        self.scopes.iter().map(|scope| scope.iter().map(|var| var.moved).collect()).collect()
    }

    fn restore(&mut self, moved: &[Vec<bool>]) {
        for (scope, moved) in self.scopes.iter_mut().zip(moved) {
            for (var, &moved) in scope.iter_mut().zip(moved) {
                var.moved = moved;
            }
        }
    }

    /// After branches: moved if moved on any of them.
    fn join(&mut self, states: &[Vec<Vec<bool>>]) {
        for state in states {
            for (scope, moved) in self.scopes.iter_mut().zip(state) {
                for (var, &moved) in scope.iter_mut().zip(moved) {
                    var.moved |= moved;
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
        for stmt in &block.stmts {
            diverges |= self.stmt(stmt)? == Ty::Never;
        }
        match &block.tail {
            Some(tail) => self.expr(tail),
            None if diverges => Ok(Ty::Never),
            None => Ok(Ty::Unit),
        }
    }

    /// The statement's type, to tell whether it diverges.
    pub(super) fn stmt(&mut self, stmt: &Stmt) -> Result<Ty> {
        match stmt {
            // `let _ = place;` neither moves nor drops the place.
            Stmt::Let(Pat::Wild, Expr::Var(name)) => {
                let var = self.lookup(name)?;
                if var.moved {
                    return Err(format!("`{name}` used after a move"));
                }
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
                let var = self.lookup(name)?;
                if !var.mutable || var.ty != ty || matches!(ty, Ty::Tuple(_)) {
                    return Err(format!("cannot assign to `{name}`"));
                }
                if var.target_depth == target_depth {
                    var.moved = false;
                }
                Ok(Ty::Unit)
            }
            Stmt::Assign(name, op, value) => {
                // The value is evaluated before the place.
                self.operand(value, &Ty::U32)?;
                let arithmetic = matches!(op, Op::Add | Op::Mul | Op::Xor | Op::BitOr | Op::BitAnd);
                let var = self.lookup(name)?;
                if !arithmetic || !var.mutable || var.ty != Ty::U32 {
                    return Err(format!("cannot assign to `{name}`"));
                }
                Ok(Ty::Unit)
            }
            Stmt::Expr(expr) => self.expr(expr),
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
                let target = &mut self.targets[index];
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
                self.operand(value, &Ty::Res)?;
                Ok(Ty::Never)
            }
            Expr::Panic(_, value) => {
                self.operand(value, &Ty::U32)?;
                Ok(Ty::Never)
            }
        }
    }

    fn match_expr(&mut self, scrutinee: &Expr, arms: &[Arm]) -> Result<Ty> {
        let scrutinee_ty = self.value(scrutinee)?;
        let exhaustive = match scrutinee_ty {
            Ty::U32 => arms.iter().any(|arm| matches!(arm.pat, ArmPat::Bind(_) | ArmPat::Wild)),
            Ty::Res => {
                arms.iter().any(|arm| matches!(arm.pat, ArmPat::Wild))
                    || (arms.iter().any(|arm| matches!(arm.pat, ArmPat::Ok(_)))
                        && arms.iter().any(|arm| matches!(arm.pat, ArmPat::Err)))
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
        self.targets.push(Target { label: label.to_owned(), is_loop, takes_value, ty, in_condition: false });
        if is_loop {
            self.loop_depth += 1;
        }
        Ok(())
    }

    /// Into or out of the condition of the innermost loop (a `while`).
    pub(super) fn in_condition(&mut self, inside: bool) {
        self.targets.last_mut().expect("entered").in_condition = inside;
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
            };
            this.enter(&node.label, true, matches!(node.kind, LoopKind::Loop { .. }), value_ty)?;
            let result = this.scoped(|this| {
                match &node.kind {
                    LoopKind::Loop { default: Some(default), .. } => this.operand(default, &Ty::U32)?,
                    LoopKind::While { cond, .. } => {
                        this.in_condition(true);
                        let cond = this.operand(cond, &Ty::Bool);
                        this.in_condition(false);
                        cond?
                    }
                    LoopKind::Range { name, .. } => this.declare(name, Ty::U32, false),
                    LoopKind::Louds { name, .. } => this.declare(name, Ty::Loud, false),
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
