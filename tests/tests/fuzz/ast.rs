//! The generated language: a small, typed subset of `async fn` bodies that the classic
//! lowering accepts. Values are `u32`, `bool`, `Loud` (logs its drop) and
//! `Result<u32, String>`; tuples appear only where a `let` destructures them. No reference
//! outlives the call it is passed to, so nothing borrows a local across an await.

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    U32,
    Bool,
    Loud,
    Res,
    Unit,
    Tuple(Vec<Ty>),
    /// The type of `return`, `break`, `panic!`: coerces to any type.
    Never,
}

impl Ty {
    /// Used by value without being moved.
    pub fn is_copy(&self) -> bool {
        matches!(self, Ty::U32 | Ty::Bool | Ty::Unit | Ty::Never)
    }
}

#[derive(Clone, Debug)]
pub struct Program {
    pub params: Vec<Param>,
    /// Of type `Result<u32, String>`, the function's result.
    pub body: Block,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub ty: Ty,
    pub mutable: bool,
    /// What each call passes (a literal, `Loud::new(..)`, `Ok(..)` or `Err(..)`).
    pub arg: Expr,
}

#[derive(Clone, Debug)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub tail: Option<Box<Expr>>,
}

#[derive(Clone, Debug)]
pub enum Stmt {
    Let(Pat, Expr),
    /// `name op= value;` on a `mut` u32 local, or `name = value;` (`Op::Set`) on a `mut`
    /// local of any type, moved or not (the old value drops, if there is one).
    Assign(String, Op, Expr),
    /// `value;`
    Expr(Expr),
}

#[derive(Clone, Debug)]
pub enum Pat {
    /// `x` or `mut x`.
    Bind(Binding),
    /// `_`: binds nothing, and moves nothing out of a place.
    Wild,
    /// `(a, _, mut b)`.
    Tuple(Vec<Option<Binding>>),
}

#[derive(Clone, Debug)]
pub struct Binding {
    pub name: String,
    pub mutable: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Mul,
    Xor,
    BitOr,
    BitAnd,
    Lt,
    Eq,
    And,
    Or,
    /// `=`, in `Stmt::Assign` only.
    Set,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leaf {
    /// `now(..)`: completes at once.
    Now,
    /// `later(..)`: suspends once.
    Later,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Helper {
    /// `mix(u32, u32) -> u32`
    Mix,
    /// `add3(u32, u32, u32) -> u32`
    Add3,
    /// `consume(Loud) -> u32`
    Consume,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    WrappingAdd,
    Max,
    Min,
}

#[derive(Clone, Debug)]
pub enum Expr {
    Lit(u32),
    Bool(bool),
    /// A local or parameter, used by value (a move unless its type is `Copy`).
    Var(String),
    /// `ev("label", e)`
    Ev(String, Box<Expr>),
    /// `now("label", e).await` or `later("label", e).await`
    Await(Leaf, String, Box<Expr>),
    /// `forever::<T>("label").await`: never completes.
    Forever(String, Ty),
    Binary(Op, Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Call(Helper, Vec<Expr>),
    /// `note("label", e)`: logs a computed value.
    Note(String, Box<Expr>),
    /// `receiver.method(arg)` on u32.
    Method(Box<Expr>, Method, Box<Expr>),
    /// `weigh(&name)`: borrows a `Loud` local for the call.
    Weigh(String),
    /// `weigh(&Loud::new("label"))`: a temporary that lives to the end of the statement.
    WeighNew(String),
    /// `name.is_ok()`: borrows a `Result` local.
    IsOk(String),
    /// `Pair { a, b }.a` (`first`) or `.b`: the other field is a temporary.
    PairField(Box<Expr>, Box<Expr>, bool),
    /// `(e, ..)`: only as what a `let` destructures or binds whole (or awaits first).
    Tuple(Vec<Expr>),
    /// `name.index`: a `u32` element of a tuple local, copied (the rest of the local stays,
    /// to drop at the end of its scope).
    LocalField(String, usize),
    /// `(e, ..).index`: the other elements are temporaries, which live to the end of the
    /// statement (past the awaits after it).
    TupleField(Vec<Expr>, usize),
    /// `[a, b, c][(index % 3) as usize]`
    Index(Vec<Expr>, Box<Expr>),
    /// `check("label", e)`: a `Result` that is `Err` for one value in four.
    Check(String, Box<Expr>),
    /// `e?`
    Try(Box<Expr>),
    Ok(Box<Expr>),
    Err(String),
    NewLoud(String),
    If(Box<Expr>, Block, Option<Block>),
    Match(Box<Expr>, Vec<Arm>),
    Block(Block),
    /// `'label: { .. }`
    Labelled(String, Block),
    Loop(Loop),
    Break(Option<String>, Option<Box<Expr>>),
    Continue(Option<String>),
    /// `return e` (e is a `Result`).
    Return(Box<Expr>),
    /// `panic!("label {}", e)`
    Panic(String, Box<Expr>),
}

/// A loop that terminates: a counter (or the iterable) bounds it.
#[derive(Clone, Debug)]
pub struct Loop {
    pub label: String,
    pub kind: LoopKind,
    pub body: Block,
}

#[derive(Clone, Debug)]
pub enum LoopKind {
    /// `{ let mut c = 0; 'l: loop { if c == bound { break 'l default; } c += 1; body } }`;
    /// with `default`, the loop has a value (`break 'l value` inside).
    Loop { counter: String, bound: u32, default: Option<Box<Expr>> },
    /// `{ let mut c = 0; 'l: while c < bound && cond { c += 1; body } }`
    While { counter: String, bound: u32, cond: Box<Expr> },
    /// `'l: for name in 0..(end % 4) { body }`
    Range { name: String, end: Box<Expr> },
    /// `'l: for name in [Loud::new(..), ..] { body }`, the array awaited first if `leaf`.
    Louds { name: String, labels: Vec<String>, leaf: Option<(Leaf, String)> },
}

#[derive(Clone, Debug)]
pub struct Arm {
    pub pat: ArmPat,
    pub body: Expr,
}

#[derive(Clone, Debug)]
pub enum ArmPat {
    Lit(u32),
    /// `a | b`
    Either(u32, u32),
    /// A binding of the (u32) scrutinee.
    Bind(String),
    Wild,
    /// `Ok(name)` on a `Result` scrutinee.
    Ok(String),
    /// `Err(_)`
    Err,
}
