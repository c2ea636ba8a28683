async fn add(a: u32, b: u32) -> u32 {
    #[::lowering::__private::linkme::distributed_slice(::lowering::__private::RECORDS)]
    # [linkme (crate = :: lowering :: __private :: linkme)]
    #[doc(hidden)]
    static __LOWERING_RECORD: ::lowering::LoweringRecord = ::lowering::LoweringRecord {
        lowering: ::lowering::Lowering::Runtime,
        module: ::core::module_path!(),
        function: "add",
        generated_type: ::core::option::Option::None,
        value_task: false,
        file: ::core::file!(),
        line: ::core::line!(),
    };
    let x = ready(a).await;
    x + b
}
