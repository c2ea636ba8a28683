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

    /// What the code a run called was lowered as, named as the configurations are, from the
    /// lowering records of the very functions it called (`called`, see [`Called`]); an error,
    /// and nothing timed, when that is not this configuration.
    pub fn prove(self, called: Option<&Called>) -> Result<String, String> {
        let Some(called) = called else {
            return match self {
                Config::Control => Ok("none (no proxy)".to_owned()),
                _ => Err(format!("the {} configuration called no lowered function: not timing it", self.name())),
            };
        };
        if self == Config::Control {
            return Err(format!("the control called `{}`: not timing it", called.application));
        }
        let measured = name_of(lowering_at(&called.application), lowering_at(&called.library));
        if measured == self.name() {
            Ok(measured)
        } else {
            Err(format!(
                "the {} configuration called `{}` over `{}`, whose lowering records say {measured}: not timing it",
                self.name(),
                called.application,
                called.library
            ))
        }
    }
}

/// The functions a run's code called, by their defining paths (`std::any::type_name_of_val`
/// of the function items it calls): the application's top function, and a library function
/// that the application's code calls, named through the same `library` alias that code uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Called {
    pub application: String,
    pub library: String,
}

/// The lowering record of the function at `path` (`module::function`).
fn lowering_at(path: &str) -> Option<Lowering> {
    let (module, function) = path.rsplit_once("::")?;
    lowering::records_of(module, function).next().map(|record| record.lowering)
}

/// A configuration's name from the lowerings the records give its two layers.
fn name_of(application: Option<Lowering>, library: Option<Lowering>) -> String {
    match (application, library) {
        (Some(Lowering::Classic), Some(Lowering::Classic)) => "classic".to_owned(),
        (Some(Lowering::Runtime), Some(Lowering::Runtime)) => "runtime".to_owned(),
        (Some(application), Some(library)) => format!("{}-over-{}", application.as_str(), library.as_str()),
        (application, library) => format!("no record (application {application:?}, library {library:?})"),
    }
}
