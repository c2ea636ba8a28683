//! The five configurations: which lowering each layer of the proxy got, or no proxy at all.

use lowering::Lowering;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Config {
    /// Classic application over the classic library (seed 001's `net10`).
    Classic,
    /// Runtime application over the runtime library (`net11+RA`).
    Runtime,
    /// Classic application over the runtime library: the middle column (`net11`).
    ClassicOverRuntime,
    /// Runtime application over the classic library: the fourth combination.
    RuntimeOverClassic,
    /// No proxy: the generator talks to the origin directly (the surrounding stack's share).
    Control,
}

impl Config {
    /// In table order: seed 001's three, the fourth, the control.
    pub const ALL: [Config; 5] =
        [Config::Classic, Config::ClassicOverRuntime, Config::Runtime, Config::RuntimeOverClassic, Config::Control];

    pub fn name(self) -> &'static str {
        match self {
            Config::Classic => "classic",
            Config::Runtime => "runtime",
            Config::ClassicOverRuntime => "classic-over-runtime",
            Config::RuntimeOverClassic => "runtime-over-classic",
            Config::Control => "control",
        }
    }

    pub fn parse(name: &str) -> Option<Config> {
        Config::ALL.into_iter().find(|config| config.name() == name)
    }

    /// The lowerings of the application and of the library; `None` for the control.
    pub fn layers(self) -> Option<(Lowering, Lowering)> {
        match self {
            Config::Classic => Some((Lowering::Classic, Lowering::Classic)),
            Config::Runtime => Some((Lowering::Runtime, Lowering::Runtime)),
            Config::ClassicOverRuntime => Some((Lowering::Classic, Lowering::Runtime)),
            Config::RuntimeOverClassic => Some((Lowering::Runtime, Lowering::Classic)),
            Config::Control => None,
        }
    }

    /// The application module this configuration runs.
    fn application_module(self) -> Option<&'static str> {
        match self {
            Config::Classic => Some("lowering_proxy::application::classic_over_classic"),
            Config::Runtime => Some("lowering_proxy::application::runtime_over_runtime"),
            Config::ClassicOverRuntime => Some("lowering_proxy::application::classic_over_runtime"),
            Config::RuntimeOverClassic => Some("lowering_proxy::application::runtime_over_classic"),
            Config::Control => None,
        }
    }

    fn library_module(self) -> Option<&'static str> {
        match self.layers()?.1 {
            Lowering::Classic => Some("lowering_proxy::library::classic"),
            Lowering::Runtime => Some("lowering_proxy::library::runtime"),
        }
    }

    /// What the artifact says this configuration runs: the lowering records of the
    /// application's `exchanges` and of the library's `read_head`, named as the configurations
    /// are (`classic-over-runtime`, ...), so that a mislabelled build cannot pass unnoticed.
    pub fn measured(self) -> String {
        let (Some(application), Some(library)) = (self.application_module(), self.library_module()) else {
            return "none (no proxy)".to_owned();
        };
        let lowering_of =
            |module: &str, function: &str| lowering::records_of(module, function).next().map(|record| record.lowering);
        name_of(lowering_of(application, "exchanges"), lowering_of(library, "read_head"))
    }
}

/// A configuration's name from the lowerings the records give its two layers.
pub(crate) fn name_of(application: Option<Lowering>, library: Option<Lowering>) -> String {
    match (application, library) {
        (Some(Lowering::Classic), Some(Lowering::Classic)) => "classic".to_owned(),
        (Some(Lowering::Runtime), Some(Lowering::Runtime)) => "runtime".to_owned(),
        (Some(application), Some(library)) => format!("{}-over-{}", application.as_str(), library.as_str()),
        (application, library) => format!("no record (application {application:?}, library {library:?})"),
    }
}
