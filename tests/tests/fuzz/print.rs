//! Programs as Rust source text.

use std::fmt::Write as _;

use super::ast::*;

/// `pub async fn NAME(params) -> Result<u32, String> { body }`; for a method, its struct and
/// `impl NameMachine { pub async fn NAME(&mut self, params) .. }`; with the program's
/// `Signature` around it (a generic impl, an `#[async_trait]` trait and its impl, a bounded
/// type parameter, an `impl Trait` argument).
pub fn function(program: &Program, name: &str) -> String {
    let mut out = String::new();
    let mut params: Vec<String> = program
        .params
        .iter()
        .map(|param| {
            let binding = format!("{}{}", if param.mutable { "mut " } else { "" }, param.name);
            match param.shape {
                ParamShape::Plain => format!("{binding}: {}", ty(&param.ty)),
                ParamShape::Wild => format!("_: {}", ty(&param.ty)),
                ParamShape::WithWild => format!("({binding}, _): ({}, Loud)", ty(&param.ty)),
            }
        })
        .collect();
    if stores(program) {
        params.splice(0..0, SINKS.iter().map(|(name, ty, _)| format!("{name}: {ty}")));
    }
    let mut generics = "";
    match program.signature {
        Signature::Bounded => {
            generics = "<'a, T: std::fmt::Debug + ?Sized + 'a>";
            params.insert(0, "_tag: &'a T".to_owned());
        }
        Signature::ImplTraitArg => params.insert(0, "_tag: impl std::fmt::Display".to_owned()),
        Signature::Plain | Signature::GenericImpl | Signature::AsyncTrait => {}
    }
    let output = if program.unit { "" } else { " -> Result<u32, String>" };
    let mut indent = 1;
    let mut visibility = "pub ";
    if program.receiver {
        let machine = machine(name);
        let mut fields: Vec<String> =
            RECEIVER_FIELDS.iter().map(|(field, ty, _)| format!("pub {field}: {ty}")).collect();
        params.insert(0, "&mut self".to_owned());
        match program.signature {
            Signature::GenericImpl => {
                fields.push("pub _tag: std::marker::PhantomData<T>".to_owned());
                writeln!(out, "pub struct {machine}<T: ?Sized> {{ {} }}\n", fields.join(", ")).unwrap();
                writeln!(out, "impl<T: std::fmt::Debug + ?Sized> {machine}<T> {{").unwrap();
            }
            Signature::AsyncTrait => {
                // A declaration has no patterns: each parameter is `_: ty` there.
                let mut declared: Vec<String> = vec!["&mut self".to_owned()];
                if stores(program) {
                    declared.extend(SINKS.iter().map(|(_, ty, _)| format!("_: {ty}")));
                }
                declared.extend(program.params.iter().map(|param| match param.shape {
                    ParamShape::WithWild => format!("_: ({}, Loud)", ty(&param.ty)),
                    ParamShape::Plain | ParamShape::Wild => format!("_: {}", ty(&param.ty)),
                }));
                writeln!(out, "pub struct {machine} {{ {} }}\n", fields.join(", ")).unwrap();
                writeln!(
                    out,
                    "#[async_trait::async_trait(?Send)]\npub trait {machine}Trait {{\n    async fn {name}({}){output};\n    \
                     async fn bump(&mut self, n: u32) -> u32;\n}}\n",
                    declared.join(", ")
                )
                .unwrap();
                writeln!(out, "#[async_trait::async_trait(?Send)]\nimpl {machine}Trait for {machine} {{").unwrap();
                visibility = "";
            }
            Signature::Plain | Signature::Bounded | Signature::ImplTraitArg => {
                writeln!(out, "pub struct {machine} {{ {} }}\n\nimpl {machine} {{", fields.join(", ")).unwrap();
            }
        }
        // Another method of the same impl, which the body may await on `self`.
        writeln!(
            out,
            "    {visibility}async fn bump(&mut self, n: u32) -> u32 {{\n        \
             self.count = (self.count + later(\"bump\", n).await) % 100;\n        self.count\n    }}\n"
        )
        .unwrap();
        out.push_str("    ");
        indent = 2;
    }
    writeln!(out, "{visibility}async fn {name}{generics}({}){output} {{", params.join(", ")).unwrap();
    let mut printer = Printer { out, indent };
    printer.block_contents(&program.body);
    if program.receiver {
        printer.out.push_str("\n    }\n}\n");
    } else {
        printer.out.push_str("\n}\n");
    }
    printer.out
}

/// The struct whose method a program with a receiver is: `seed7_program3` gives
/// `Seed7Program3Machine`.
fn machine(name: &str) -> String {
    let mut out = String::new();
    for word in name.split('_') {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.extend(chars);
        }
    }
    out.push_str("Machine");
    out
}

/// The parameters a program that stores closures and futures past the call takes first (the
/// vectors its caller holds, `lowering_tests::fuzz::Sinks`' fields): name, type, argument.
pub const SINKS: [(&str, &str, &str); 2] = [
    ("out", "&mut Vec<Box<dyn Fn() -> u32>>", "&mut sinks.kept"),
    ("pending", "&mut Vec<std::pin::Pin<Box<dyn std::future::Future<Output = u32>>>>", "&mut sinks.pending"),
];

/// Does the program invoke `awaited!`, whose own body awaits (the classic variant is then
/// lowered with the hint `awaits(awaited)`)?
pub fn awaits_in_a_macro(program: &Program) -> bool {
    let mut found = false;
    visit_block(&program.body, &mut |node| {
        if let Node::Expr(Expr::Await(Leaf::Pasted, ..)) = node {
            found = true;
        }
    });
    found
}

/// The definitions of the macros of the user's that `program` invokes (`macro_rules!` of the
/// generated crate, written before the functions).
pub fn macros(program: &Program) -> String {
    let (mut keep, mut deferred, mut plain, mut declare) = (false, false, false, false);
    visit_block(&program.body, &mut |node| match node {
        Node::Expr(Expr::Store(Store::Keep, _)) => keep = true,
        Node::Expr(Expr::Store(Store::Deferred, _)) => deferred = true,
        Node::Expr(Expr::Plain(_)) => plain = true,
        Node::Stmt(Stmt::Declare(..)) => declare = true,
        _ => {}
    });
    let mut out = String::new();
    if awaits_in_a_macro(program) {
        out.push_str("macro_rules! awaited { ($label:literal, $e:expr) => { later($label, $e).await }; }\n");
    }
    if keep {
        out.push_str("macro_rules! keep { ($($t:tt)*) => { Box::new(move || { $($t)* }) }; }\n");
    }
    if deferred {
        out.push_str("macro_rules! deferred { ($($t:tt)*) => { async move { $($t)* } }; }\n");
    }
    if plain {
        out.push_str("macro_rules! plain { ($($t:tt)*) => { $($t)* }; }\n");
    }
    if declare {
        out.push_str("macro_rules! declare { ($n:ident = $e:expr) => { let $n = $e; }; }\n");
    }
    out
}

/// The arguments of a call: fresh values each time (a program that stores takes the vectors of
/// `sinks`, a `&mut lowering_tests::fuzz::Sinks` in scope where the call is written).
pub fn arguments(program: &Program) -> String {
    let tag = match program.signature {
        Signature::Bounded => Some("\"tag\"".to_owned()),
        Signature::ImplTraitArg => Some("7u8".to_owned()),
        Signature::Plain | Signature::GenericImpl | Signature::AsyncTrait => None,
    };
    let sinks = if stores(program) { SINKS.iter().map(|(_, _, arg)| (*arg).to_owned()).collect() } else { Vec::new() };
    tag.into_iter()
        .chain(sinks)
        .chain(program.params.iter().map(|param| match param.shape {
            ParamShape::WithWild => format!("({}, Loud::new(\"{}_\"))", inline(&param.arg), param.name),
            _ => inline(&param.arg),
        }))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A call of the program `name` in `module` (`classic` or `runtime`), as a closure's body: a
/// method is called on a fresh receiver (made and called at once, `call_method`), which drops
/// (logged) after the call's future.
pub fn call(program: &Program, module: &str, name: &str) -> String {
    let args = arguments(program);
    if !program.receiver {
        return format!("{module}::{name}({args})");
    }
    let mut fields: Vec<String> = RECEIVER_FIELDS.iter().map(|(field, _, value)| format!("{field}: {value}")).collect();
    let machine = machine(name);
    match program.signature {
        Signature::GenericImpl => {
            fields.push("_tag: std::marker::PhantomData".to_owned());
            format!(
                "call_method({module}::{machine}::<str> {{ {} }}, |receiver| receiver.{name}({args}))",
                fields.join(", ")
            )
        }
        Signature::AsyncTrait => {
            let args = if args.is_empty() { String::new() } else { format!(", {args}") };
            format!(
                "call_method({module}::{machine} {{ {} }}, |receiver| {module}::{machine}Trait::{name}(receiver{args}))",
                fields.join(", ")
            )
        }
        Signature::Plain | Signature::Bounded | Signature::ImplTraitArg => {
            format!("call_method({module}::{machine} {{ {} }}, |receiver| receiver.{name}({args}))", fields.join(", "))
        }
    }
}

/// An expression on one line.
pub fn inline(expr: &Expr) -> String {
    let mut printer = Printer { out: String::new(), indent: 0 };
    printer.expr(expr, Context::Free);
    printer.out
}

pub fn ty(of: &Ty) -> String {
    match of {
        Ty::U32 => "u32".to_owned(),
        Ty::Bool => "bool".to_owned(),
        Ty::Loud => "Loud".to_owned(),
        Ty::Res => "Result<u32, String>".to_owned(),
        Ty::Unit | Ty::Never => "()".to_owned(),
        Ty::Tuple(items) => format!("({},)", items.iter().map(ty).collect::<Vec<_>>().join(", ")),
        Ty::Buf => "Buf".to_owned(),
        Ty::Duo => "Pair<Loud, Loud>".to_owned(),
        Ty::Ref(inner) => format!("&{}", ty(inner)),
        Ty::Item(_) => unreachable!("an item is no value"),
        Ty::Closure(_) => unreachable!("a closure's type has no name"),
    }
}

/// Where an expression stands, for the parentheses it needs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    /// Delimited: a call argument, a `let` initializer, a block's tail.
    Free,
    /// An operand of an operator, a receiver, or what `?`/`.await` applies to.
    Operand,
    /// An `if`/`while` condition, a scrutinee, an iterable: no struct literal at top level.
    Condition,
}

struct Printer {
    out: String,
    indent: usize,
}

impl Printer {
    fn newline(&mut self) {
        self.out.push('\n');
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
    }

    fn block(&mut self, block: &Block) {
        self.out.push('{');
        self.indent += 1;
        self.block_contents(block);
        self.indent -= 1;
        self.newline();
        self.out.push('}');
    }

    fn block_contents(&mut self, block: &Block) {
        for stmt in &block.stmts {
            self.newline();
            self.stmt(stmt);
        }
        if let Some(tail) = &block.tail {
            self.newline();
            self.expr(tail, Context::Free);
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Let(pat, init) => {
                self.out.push_str("let ");
                self.pat(pat);
                if let Pat::Bind(Binding { annotated: Some(annotated), .. }) = pat {
                    write!(self.out, ": {}", ty(annotated)).unwrap();
                }
                self.out.push_str(" = ");
                self.expr(init, Context::Free);
                self.out.push(';');
            }
            Stmt::Assign(name, Op::Set, value) => {
                write!(self.out, "{name} = ").unwrap();
                self.expr(value, Context::Free);
                self.out.push(';');
            }
            Stmt::Assign(name, op, value) => {
                write!(self.out, "{name} {}= ", binary_op(*op)).unwrap();
                self.expr(value, Context::Free);
                self.out.push(';');
            }
            Stmt::Item(name, ItemKind::Const(value)) => write!(self.out, "const {name}: u32 = {value};").unwrap(),
            Stmt::Item(name, ItemKind::Fn) => write!(self.out, "fn {name}(x: u32) -> u32 {{ x % 5 + 1 }}").unwrap(),
            Stmt::Item(name, ItemKind::Struct) => write!(self.out, "struct {name}(u32);").unwrap(),
            Stmt::Item(name, ItemKind::Use) => write!(self.out, "use std::cmp::min as {name};").unwrap(),
            Stmt::LetElse(binding, init, otherwise) => {
                self.out.push_str("let Ok(");
                self.binding(binding);
                self.out.push_str(") = ");
                self.expr(init, Context::Free);
                self.out.push_str(" else ");
                self.block(otherwise);
                self.out.push(';');
            }
            Stmt::Expr(expr) => {
                // A block-like statement first would end at its `}` and leave the rest dangling.
                self.expr(expr, Context::Free);
                self.out.push(';');
            }
            Stmt::Declare(name, value) => {
                write!(self.out, "declare!({name} = ").unwrap();
                self.expr(value, Context::Free);
                self.out.push_str(");");
            }
        }
    }

    /// `|| tail`, `move || { stmts; tail }`.
    fn closure(&mut self, closure: &Closure) {
        if closure.kind == ClosureKind::Move {
            self.out.push_str("move ");
        }
        self.out.push_str("|| ");
        match &closure.body {
            Block { stmts, tail: Some(tail) } if stmts.is_empty() => self.expr(tail, Context::Free),
            body => self.block(body),
        }
    }

    fn pat(&mut self, pat: &Pat) {
        match pat {
            Pat::Bind(binding) => self.binding(binding),
            Pat::Wild => self.out.push('_'),
            Pat::Tuple(items) => {
                self.out.push('(');
                for item in items {
                    match item {
                        Some(binding) => self.binding(binding),
                        None => self.out.push('_'),
                    }
                    self.out.push_str(", ");
                }
                self.out.push(')');
            }
        }
    }

    fn binding(&mut self, binding: &Binding) {
        if binding.mutable {
            self.out.push_str("mut ");
        }
        self.out.push_str(&binding.name);
    }

    fn list(&mut self, items: &[Expr]) {
        for (index, item) in items.iter().enumerate() {
            if index > 0 {
                self.out.push_str(", ");
            }
            self.expr(item, Context::Free);
        }
    }

    fn expr(&mut self, expr: &Expr, context: Context) {
        let parens = match expr {
            Expr::Binary(..) | Expr::Not(_) | Expr::Return(_) | Expr::Break(..) => context != Context::Free,
            Expr::If(..) | Expr::Match(..) | Expr::Block(_) | Expr::Labelled(..) | Expr::Loop(_) => {
                context != Context::Free
            }
            Expr::PairField(..) | Expr::PairShorthand(_) | Expr::PairUpdate(..) => context == Context::Condition,
            Expr::Deref(_) | Expr::Borrow(_) => context != Context::Free,
            // At the start of a statement or a block's tail, `async { .. }` would end there.
            Expr::AsyncBlock(_) => true,
            _ => false,
        };
        if parens {
            self.out.push('(');
        }
        self.expr_unparenthesized(expr, context);
        if parens {
            self.out.push(')');
        }
    }

    fn expr_unparenthesized(&mut self, expr: &Expr, context: Context) {
        // Operands of an operator keep the caller's condition restriction.
        let operand = if context == Context::Condition { Context::Condition } else { Context::Operand };
        match expr {
            // Suffixed: a literal's type must not depend on inference across the lowering.
            Expr::Lit(value) => write!(self.out, "{value}u32").unwrap(),
            Expr::Bool(value) => write!(self.out, "{value}").unwrap(),
            Expr::Var(name) => self.out.push_str(name),
            Expr::Ev(label, value) => {
                write!(self.out, "ev(\"{label}\", ").unwrap();
                self.expr(value, Context::Free);
                self.out.push(')');
            }
            Expr::Await(Leaf::Pasted, label, value) => {
                write!(self.out, "awaited!(\"{label}\", ").unwrap();
                self.expr(value, Context::Free);
                self.out.push(')');
            }
            Expr::Await(leaf, label, value) => {
                let leaf = if *leaf == Leaf::Now { "now" } else { "later" };
                write!(self.out, "{leaf}(\"{label}\", ").unwrap();
                self.expr(value, Context::Free);
                self.out.push_str(").await");
            }
            Expr::Join(items, index) => {
                self.out.push_str("futures::join!(");
                for (position, item) in items.iter().enumerate() {
                    if position > 0 {
                        self.out.push_str(", ");
                    }
                    match item {
                        Expr::Await(leaf, label, value) => {
                            let leaf = if *leaf == Leaf::Now { "now" } else { "later" };
                            write!(self.out, "{leaf}(\"{label}\", ").unwrap();
                            self.expr(value, Context::Free);
                            self.out.push(')');
                        }
                        other => self.expr(other, Context::Free),
                    }
                }
                write!(self.out, ").{index}").unwrap();
            }
            Expr::ItemUse(name, kind, args) => {
                self.out.push_str(name);
                if !matches!(kind, ItemKind::Const(_)) {
                    self.out.push('(');
                    self.list(args);
                    self.out.push(')');
                }
                if *kind == ItemKind::Struct {
                    self.out.push_str(".0");
                }
            }
            Expr::Forever(label, value_ty) => {
                write!(self.out, "forever::<{}>(\"{label}\").await", ty(value_ty)).unwrap()
            }
            Expr::Binary(op, left, right) => {
                self.expr(left, operand);
                write!(self.out, " {} ", binary_op(*op)).unwrap();
                self.expr(right, operand);
            }
            Expr::Not(value) => {
                self.out.push('!');
                self.expr(value, operand);
            }
            Expr::Call(helper, args) => {
                self.out.push_str(match helper {
                    Helper::Mix => "mix(",
                    Helper::Add3 => "add3(",
                    Helper::Consume => "consume(",
                });
                self.list(args);
                self.out.push(')');
            }
            Expr::Note(label, value) => {
                write!(self.out, "note(\"{label}\", ").unwrap();
                self.expr(value, Context::Free);
                self.out.push(')');
            }
            Expr::Method(receiver, method, arg) => {
                self.expr(receiver, operand);
                self.out.push_str(match method {
                    Method::WrappingAdd => ".wrapping_add(",
                    Method::Max => ".max(",
                    Method::Min => ".min(",
                });
                self.expr(arg, Context::Free);
                self.out.push(')');
            }
            Expr::Weigh(name) => write!(self.out, "weigh(&{name})").unwrap(),
            Expr::LocalField(name, index) => write!(self.out, "{name}.{index}").unwrap(),
            Expr::WeighNew(label) => write!(self.out, "weigh(&Loud::new(\"{label}\"))").unwrap(),
            Expr::IsOk(name) => write!(self.out, "{name}.is_ok()").unwrap(),
            Expr::PairShorthand(b) => {
                self.out.push_str("Pair { a, b: ");
                self.expr(b, Context::Free);
                self.out.push_str(" }.a");
            }
            Expr::PairUpdate(a, base) => {
                self.out.push_str("Pair { a: ");
                self.expr(a, Context::Free);
                write!(self.out, ", ..{base} }}.b").unwrap();
            }
            Expr::UpperLater(label, source) => {
                let source = match source {
                    Some(name) => name.clone(),
                    None => format!("Loud::new(\"{label}\")"),
                };
                write!(self.out, "len_later(\"{label}\", &{source}.name().to_uppercase()).await").unwrap();
            }
            Expr::WeighAll(label, sources) => {
                write!(self.out, "weigh_all_later(\"{label}\", &[").unwrap();
                for (index, source) in sources.iter().enumerate() {
                    match source {
                        Some(name) => write!(self.out, "&{name}, ").unwrap(),
                        None => write!(self.out, "&Loud::new(\"{label}.{index}\"), ").unwrap(),
                    }
                }
                write!(self.out, "&{}u32]).await", sources.len()).unwrap();
            }
            Expr::PairField(a, b, first) => {
                self.out.push_str("Pair { a: ");
                self.expr(a, Context::Free);
                self.out.push_str(", b: ");
                self.expr(b, Context::Free);
                self.out.push_str(if *first { " }.a" } else { " }.b" });
            }
            Expr::Tuple(items) => {
                self.out.push('(');
                self.list(items);
                self.out.push_str(",)");
            }
            Expr::TupleField(items, index) => {
                self.out.push('(');
                self.list(items);
                write!(self.out, ",).{index}").unwrap();
            }
            Expr::Index(items, index) => {
                self.out.push('[');
                self.list(items);
                self.out.push_str("][(");
                self.expr(index, Context::Operand);
                write!(self.out, " % {}) as usize]", items.len()).unwrap();
            }
            Expr::Check(label, value) => {
                write!(self.out, "check(\"{label}\", ").unwrap();
                self.expr(value, Context::Free);
                self.out.push(')');
            }
            Expr::Try(value) => {
                self.expr(value, operand);
                self.out.push('?');
            }
            Expr::Ok(value) => {
                self.out.push_str("Ok::<u32, String>(");
                self.expr(value, Context::Free);
                self.out.push(')');
            }
            Expr::Err(label) => write!(self.out, "Err::<u32, String>(String::from(\"{label}\"))").unwrap(),
            Expr::NewLoud(label) => write!(self.out, "Loud::new(\"{label}\")").unwrap(),
            Expr::If(cond, then_branch, else_branch) => {
                self.out.push_str("if ");
                self.expr(cond, Context::Condition);
                self.out.push(' ');
                self.block(then_branch);
                match else_branch {
                    Some(Block { stmts, tail: Some(tail) }) if stmts.is_empty() && matches!(**tail, Expr::If(..)) => {
                        self.out.push_str(" else ");
                        self.expr_unparenthesized(tail, Context::Free);
                    }
                    Some(else_branch) => {
                        self.out.push_str(" else ");
                        self.block(else_branch);
                    }
                    None => {}
                }
            }
            Expr::Match(scrutinee, arms) => {
                self.out.push_str("match ");
                self.expr(scrutinee, Context::Condition);
                self.out.push_str(" {");
                self.indent += 1;
                for arm in arms {
                    self.newline();
                    self.arm_pat(&arm.pat);
                    if let Some(guard) = &arm.guard {
                        self.out.push_str(" if ");
                        self.expr(guard, Context::Free);
                    }
                    self.out.push_str(" => ");
                    self.expr(&arm.body, Context::Free);
                    self.out.push(',');
                }
                self.indent -= 1;
                self.newline();
                self.out.push('}');
            }
            Expr::Block(block) => self.block(block),
            Expr::Labelled(label, block) => {
                write!(self.out, "'{label}: ").unwrap();
                self.block(block);
            }
            Expr::Loop(node) => self.loop_expr(node),
            Expr::Break(label, value) => {
                self.out.push_str("break");
                if let Some(label) = label {
                    write!(self.out, " '{label}").unwrap();
                }
                if let Some(value) = value {
                    self.out.push(' ');
                    // `break 'b: { .. }` would read as a labelled `break`: rustc requires
                    // parentheses around an unlabelled `break`'s labelled block.
                    let context = if label.is_none() && matches!(**value, Expr::Labelled(..)) {
                        Context::Operand
                    } else {
                        Context::Free
                    };
                    self.expr(value, context);
                }
            }
            Expr::Continue(label) => {
                self.out.push_str("continue");
                if let Some(label) = label {
                    write!(self.out, " '{label}").unwrap();
                }
            }
            Expr::Return(value) => {
                self.out.push_str("return ");
                self.expr(value, Context::Free);
            }
            Expr::Panic(label, value, false) => {
                write!(self.out, "panic!(\"{label} {{}}\", ").unwrap();
                self.expr(value, Context::Free);
                self.out.push(')');
            }
            Expr::Panic(label, value, true) => {
                write!(self.out, "std::panic::resume_unwind(Box::new(format!(\"{label} {{}}\", ").unwrap();
                self.expr(value, Context::Free);
                self.out.push_str(")))");
            }
            Expr::Borrow(name) => write!(self.out, "&{name}").unwrap(),
            Expr::Deref(name) => write!(self.out, "*{name}").unwrap(),
            Expr::WeighRef(name, false) => write!(self.out, "weigh({name})").unwrap(),
            Expr::WeighRef(name, true) => write!(self.out, "weigh_later({name}).await").unwrap(),
            Expr::WeighLater(name) => write!(self.out, "weigh_later(&{name}).await").unwrap(),
            Expr::NewBuf(label) => write!(self.out, "Buf::new(\"{label}\")").unwrap(),
            Expr::Fill(name, value) => {
                write!(self.out, "fill(&mut {name}, ").unwrap();
                self.expr(value, Context::Free);
                self.out.push_str(").await");
            }
            Expr::FillNew(label, value) => {
                write!(self.out, "fill(&mut Buf::new(\"{label}\"), ").unwrap();
                self.expr(value, Context::Free);
                self.out.push_str(").await");
            }
            Expr::PushLater(name, value) => {
                write!(self.out, "{name}.push_later(").unwrap();
                self.expr(value, Context::Free);
                self.out.push_str(").await");
            }
            Expr::Total(name) => write!(self.out, "{name}.total()").unwrap(),
            Expr::NewDuo(a, b) => {
                write!(self.out, "Pair {{ a: Loud::new(\"{a}\"), b: Loud::new(\"{b}\") }}").unwrap();
            }
            Expr::MoveField(name, first) => write!(self.out, "{name}.{}", if *first { "a" } else { "b" }).unwrap(),
            Expr::WeighField(name, first) => {
                write!(self.out, "weigh(&{name}.{})", if *first { "a" } else { "b" }).unwrap();
            }
            Expr::AsyncBlock(body) => {
                self.out.push_str("async ");
                self.block(body);
                self.out.push_str(".await");
            }
            Expr::Event(event) => self.event(event),
            Expr::IntoLen(name, CallForm::Method) => write!(self.out, "{name}.into_len()").unwrap(),
            Expr::IntoLen(name, CallForm::Function) => write!(self.out, "Loud::into_len({name})").unwrap(),
            Expr::SpendLater(name, form, value) => {
                match form {
                    CallForm::Method => write!(self.out, "{name}.spend_later(").unwrap(),
                    CallForm::Function => write!(self.out, "Loud::spend_later({name}, ").unwrap(),
                }
                self.expr(value, Context::Free);
                self.out.push_str(").await");
            }
            Expr::BorrowNew(label, extension) => match extension {
                Extension::Whole => write!(self.out, "&Loud::new(\"{label}\")").unwrap(),
                Extension::Field(value) => {
                    write!(self.out, "&(Loud::new(\"{label}\"), ").unwrap();
                    self.expr(value, Context::Free);
                    self.out.push_str(").0");
                }
                Extension::Deref => write!(self.out, "&*Box::new(Loud::new(\"{label}\"))").unwrap(),
                Extension::If(cond) => {
                    self.out.push_str("if ");
                    self.expr(cond, Context::Condition);
                    write!(self.out, " {{ &Loud::new(\"{label}.0\") }} else {{ &Loud::new(\"{label}.1\") }}").unwrap();
                }
                Extension::Block => write!(self.out, "{{ &Loud::new(\"{label}\") }}").unwrap(),
            },
            Expr::SelfBump(value) => {
                self.out.push_str("self.bump(");
                self.expr(value, Context::Free);
                self.out.push_str(").await");
            }
            Expr::Plain(value) => {
                self.out.push_str("plain!(");
                self.expr(value, Context::Free);
                self.out.push(')');
            }
            Expr::Closure(closure) => self.closure(closure),
            Expr::Apply(closure) => {
                self.out.push_str(if closure.kind == ClosureKind::Mutable { "apply_mut(" } else { "apply(" });
                self.closure(closure);
                self.out.push(')');
            }
            Expr::CallClosure(name) => write!(self.out, "{name}()").unwrap(),
            Expr::Put(name, value) => {
                write!(self.out, "{name}.put(").unwrap();
                self.expr(value, Context::Free);
                self.out.push(')');
            }
            Expr::Store(store, body) => {
                let (open, close) = match store {
                    Store::Keep => ("out.push(keep! ", ")"),
                    Store::Deferred => ("pending.push(Box::pin(deferred! ", "))"),
                    Store::MoveClosure => ("out.push(Box::new(move || ", "))"),
                    Store::AsyncMove => ("pending.push(Box::pin(async move ", "))"),
                };
                self.out.push_str(open);
                self.block(body);
                self.out.push_str(close);
            }
        }
    }

    /// `info!(target: "t", ?a, %b, c, k = ?v, "m {a} {}", e)` or `event!(Level::INFO, ..)`.
    fn event(&mut self, event: &Event) {
        let mut args: Vec<String> = Vec::new();
        if let Some(target) = &event.target {
            args.push(format!("target: \"{target}\""));
        }
        match event.level {
            Some(info) => {
                self.out.push_str("event!(");
                args.push(if info { "Level::INFO" } else { "Level::DEBUG" }.to_owned());
            }
            None => self.out.push_str("info!("),
        }
        for field in &event.fields {
            args.push(match field {
                Field::Debug(name) => format!("?{name}"),
                Field::Display(name) => format!("%{name}"),
                Field::Bare(name) => name.clone(),
                Field::Part(name, first) => format!("?{name}.{}", if *first { "a" } else { "b" }),
                Field::Named(key, sigil, value) => {
                    let sigil = match sigil {
                        Sigil::None => "",
                        Sigil::Debug => "?",
                        Sigil::Display => "%",
                    };
                    format!("{key} = {sigil}{}", inline(value))
                }
            });
        }
        if let Some(message) = &event.message {
            let mut text = message.label.clone();
            for (name, debug) in &message.captures {
                write!(text, " {{{name}{}}}", if *debug { ":?" } else { "" }).unwrap();
            }
            match &message.arg {
                Some(arg) => args.push(format!("\"{text} {{}}\", {}", inline(arg))),
                None => args.push(format!("\"{text}\"")),
            }
        }
        self.out.push_str(&args.join(", "));
        self.out.push(')');
    }

    fn arm_pat(&mut self, pat: &ArmPat) {
        match pat {
            ArmPat::Lit(value) => write!(self.out, "{value}").unwrap(),
            ArmPat::Either(a, b) => write!(self.out, "{a} | {b}").unwrap(),
            ArmPat::Bind(name) => self.out.push_str(name),
            ArmPat::Wild => self.out.push('_'),
            ArmPat::Ok(name) => write!(self.out, "Ok({name})").unwrap(),
            ArmPat::Err => self.out.push_str("Err(_)"),
        }
    }

    fn loop_expr(&mut self, node: &Loop) {
        let label = &node.label;
        match &node.kind {
            LoopKind::Loop { counter, bound, default } => {
                write!(
                    self.out,
                    "{{ let mut {counter} = 0u32; '{label}: loop {{ if {counter} == {bound} {{ break '{label}"
                )
                .unwrap();
                if let Some(default) = default {
                    self.out.push(' ');
                    self.expr(default, Context::Free);
                }
                write!(self.out, "; }} {counter} += 1;").unwrap();
                self.loop_body(&node.body);
                self.out.push_str(" }");
            }
            LoopKind::While { counter, bound, cond } => {
                write!(self.out, "{{ let mut {counter} = 0u32; '{label}: while {counter} < {bound} && ").unwrap();
                self.expr(cond, Context::Condition);
                write!(self.out, " {{ {counter} += 1;").unwrap();
                self.loop_body(&node.body);
                self.out.push_str(" }");
            }
            LoopKind::Range { name, end } => {
                write!(self.out, "'{label}: for {name} in 0..(").unwrap();
                self.expr(end, Context::Free);
                self.out.push_str(") % 4 {");
                self.loop_body(&node.body);
            }
            LoopKind::Louds { name, labels, leaf } => {
                write!(self.out, "'{label}: for {name} in ").unwrap();
                let array = labels.iter().map(|label| format!("Loud::new(\"{label}\")")).collect::<Vec<_>>().join(", ");
                match leaf {
                    None => write!(self.out, "[{array}]").unwrap(),
                    Some((Leaf::Now, awaited)) => write!(self.out, "now(\"{awaited}\", [{array}]).await").unwrap(),
                    Some((Leaf::Later | Leaf::Pasted, awaited)) => {
                        write!(self.out, "later(\"{awaited}\", [{array}]).await").unwrap()
                    }
                }
                self.out.push_str(" {");
                self.loop_body(&node.body);
            }
            LoopKind::OverBuf { name, buf } => {
                write!(self.out, "'{label}: for {name} in &{buf} {{").unwrap();
                self.loop_body(&node.body);
            }
        }
    }

    /// The statements of a loop body and its closing brace (the loop's head is printed).
    fn loop_body(&mut self, body: &Block) {
        self.indent += 1;
        self.block_contents(body);
        self.indent -= 1;
        self.newline();
        self.out.push('}');
    }
}

fn binary_op(op: Op) -> &'static str {
    match op {
        Op::Add => "+",
        Op::Mul => "*",
        Op::Xor => "^",
        Op::BitOr => "|",
        Op::BitAnd => "&",
        Op::Lt => "<",
        Op::Eq => "==",
        Op::And => "&&",
        Op::Or => "||",
        Op::Set => unreachable!("`=` is printed by `Stmt::Assign`"),
    }
}
