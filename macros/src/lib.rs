use proc_macro::TokenStream;

#[proc_macro_attribute]
pub fn lowering(_args: TokenStream, item: TokenStream) -> TokenStream {
    item
}
