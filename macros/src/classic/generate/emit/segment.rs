//! A state's code while the walk writes it: a stack of open blocks (`Level`s), the scopes
//! that enclose the state re-opened, each with the declarations it may need.

use proc_macro2::{Ident, Span, TokenStream};

use super::StateId;
use crate::classic::generate::rewrite::Sink;
use crate::classic::syntax::tracing_macros;

/// One state's code, built as a stack of open blocks.
pub(super) struct Segment {
    pub state: StateId,
    /// When the walk began it: segments are emitted in this order, which is source order,
    /// so that rustc sees each slot assigned before it is read back (its type is inferred
    /// from the first use it checks).
    pub order: usize,
    pub levels: Vec<Level>,
}

pub(super) struct Level {
    pub head: TokenStream,
    pub body: TokenStream,
    /// Locals declared without a value where the level starts (`let x;`, for code that
    /// assigns them later), each with the number of tokens in `body` before it. A
    /// declaration stays only if the level's code names the local: rustc cannot infer the
    /// type of one that nothing assigns (the assignment may be in another state's segment).
    pub uninit: Vec<(usize, Ident, TokenStream)>,
    /// The body ends in its block's tail, whose value goes to the sink, the block spanned as
    /// the user's (`Emitter::plain_value`).
    pub tail: Option<(Sink, Span)>,
}

impl Level {
    pub(super) fn new(head: TokenStream, body: TokenStream) -> Self {
        Level { head, body, uninit: Vec::new(), tail: None }
    }

    /// The level's code: its body, with the declarations it uses: a local declared without
    /// a value is only ever read after an assignment, so the code needs the declaration
    /// where it assigns the local (a mention alone may be a new binding of the same name).
    pub(super) fn code(self) -> TokenStream {
        let used: Vec<bool> = self.uninit.iter().map(|(_, name, _)| assigns(&self.body, &name.to_string())).collect();
        let mut tokens: Vec<proc_macro2::TokenTree> = self.body.into_iter().collect();
        for ((position, _, declaration), used) in self.uninit.into_iter().zip(used).rev() {
            if used {
                tokens.splice(position..position, declaration);
            }
        }
        tokens.into_iter().collect()
    }
}

/// Do these tokens assign the variable `name` (`name = ...`, not `let name = ...`, a pattern
/// or a comparison)? Not after a `let name` (or `let mut name`) statement of the same block,
/// whose binding the later mentions name (`let mut p = 1; p = 2;` assigns the new `p`).
fn assigns(tokens: &TokenStream, name: &str) -> bool {
    assigns_in(tokens, name, false)
}

/// `assigns`; `fields`: the arguments of one of tracing's macros, whose field keys
/// (`name = ?value`) assign nothing.
fn assigns_in(tokens: &TokenStream, name: &str, fields: bool) -> bool {
    use proc_macro2::{Spacing, TokenTree};
    let tokens: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let mut hidden_after_statement = false;
    for (index, token) in tokens.iter().enumerate() {
        match token {
            TokenTree::Group(group) => {
                // `info!(..)`: a macro call's path, its `!`, then its arguments.
                let tracing = index >= 2
                    && matches!(&tokens[index - 1], TokenTree::Punct(bang) if bang.as_char() == '!')
                    && matches!(&tokens[index - 2], TokenTree::Ident(path) if tracing_macros::is_tracing_name(&path.to_string()));
                if assigns_in(&group.stream(), name, tracing) {
                    return true;
                }
            }
            TokenTree::Punct(punct) if punct.as_char() == ';' && hidden_after_statement => return false,
            TokenTree::Ident(_) if fields && tracing_macros::is_field_key(&tokens, index) => {}
            TokenTree::Ident(ident) if ident == name => {
                let word_before = |word: &str| {
                    index
                        .checked_sub(1)
                        .is_some_and(|before| matches!(&tokens[before], TokenTree::Ident(w) if w == word))
                };
                let binding = word_before("let") || word_before("mut") || word_before("ref");
                if word_before("let")
                    || (word_before("mut")
                        && index
                            .checked_sub(2)
                            .is_some_and(|at| matches!(&tokens[at], TokenTree::Ident(w) if w == "let")))
                {
                    hidden_after_statement = true;
                }
                let field = index
                    .checked_sub(1)
                    .is_some_and(|before| matches!(&tokens[before], TokenTree::Punct(punct) if punct.as_char() == '.'));
                let assignment = matches!(tokens.get(index + 1), Some(TokenTree::Punct(punct)) if punct.as_char() == '=' && punct.spacing() == Spacing::Alone);
                if assignment && !binding && !field {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}
