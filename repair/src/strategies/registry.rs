//! The registry of strategies ([`Registry`]): the only constructor of a [`Strategy`]. Each
//! [`Entry`] is a name, a one-line description, an option group (a `#[derive(clap::Args)]`
//! struct under its own help heading) and a builder from those options; the registry adds
//! `--strategy` and every group to a `clap::Command` ([`Registry::augment`]) and builds the
//! chosen strategy from the parsed matches ([`Registry::build`]), refusing the options of
//! strategies that were not chosen. An option two groups declare alike (`--max-validations`)
//! is one option of the command that both read. A `--strategy` that holds commas
//! (`patterns,reinfix`) is a chain of registered strategies ([`super::chain`]): each stage is
//! built from the options as it would be alone, and the options of every stage are accepted.

use std::ffi::OsStr;
use std::marker::PhantomData;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::parser::ValueSource;
use clap::{Arg, ArgMatches, Command};

use super::chain::{self, Chain};
use super::{Strategy, patterns, reinfix, tracerepair, unidebugger};

/// The id of `--strategy` in the command.
const STRATEGY_ID: &str = "strategy";

/// One strategy of the registry.
pub trait Entry: Send + Sync {
    /// The name `--strategy` takes.
    fn name(&self) -> &'static str;

    /// What it does, in one sentence of `--strategy`'s help.
    fn about(&self) -> &'static str;

    /// Its option group, added to `cmd` (options `cmd` already holds are kept as they are).
    fn augment(&self, cmd: Command) -> Command;

    /// The strategy from the parsed options.
    ///
    /// # Errors
    /// Options that do not go together, in words for the user.
    fn build(&self, matches: &ArgMatches) -> Result<Box<dyn Strategy>, String>;
}

/// An [`Entry`] over the option group `A` ([`entry`]).
struct ArgsEntry<A> {
    name: &'static str,
    about: &'static str,
    build: fn(A) -> Result<Box<dyn Strategy>, String>,
    group: PhantomData<fn() -> A>,
}

/// The entry of strategy `name` (described by `about`) whose options are the group `A` and
/// which `build` makes from them.
#[must_use]
pub fn entry<A: clap::Args + 'static>(
    name: &'static str,
    about: &'static str,
    build: fn(A) -> Result<Box<dyn Strategy>, String>,
) -> Box<dyn Entry> {
    Box::new(ArgsEntry { name, about, build, group: PhantomData })
}

impl<A: clap::Args + 'static> Entry for ArgsEntry<A> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn about(&self) -> &'static str {
        self.about
    }

    fn augment(&self, cmd: Command) -> Command {
        let new: Vec<Arg> = group_args::<A>(self.name)
            .into_iter()
            .filter(|a| cmd.get_arguments().all(|b| b.get_id() != a.get_id()))
            .collect();
        new.into_iter().fold(cmd, Command::arg)
    }

    fn build(&self, matches: &ArgMatches) -> Result<Box<dyn Strategy>, String> {
        let args = A::from_arg_matches(matches).map_err(|e| e.to_string())?;
        (self.build)(args)
    }
}

/// The arguments of group `A` (each with its help heading).
fn group_args<A: clap::Args>(name: &'static str) -> Vec<Arg> {
    A::augment_args(Command::new(name)).get_arguments().cloned().collect()
}

/// Whether `cmd` has the option `id`.
fn holds(cmd: &Command, id: &str) -> bool {
    cmd.get_arguments().any(|a| a.get_id() == id)
}

/// `--strategy`'s parser: one registered name (clap refuses another, listing them), or a
/// chain `a,b` whose names [`Registry::build`] checks (an unknown one is
/// [`UnknownStrategy::Name`]). Help lists the registered names.
#[derive(Clone)]
struct StrategyParser(PossibleValuesParser);

impl TypedValueParser for StrategyParser {
    type Value = String;

    fn parse_ref(&self, cmd: &Command, arg: Option<&Arg>, value: &OsStr) -> Result<String, clap::Error> {
        match value.to_str() {
            Some(chain) if chain.contains(',') => Ok(chain.to_string()),
            _ => self.0.parse_ref(cmd, arg, value),
        }
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        self.0.possible_values()
    }
}

/// The strategies `--strategy` accepts; the first is the default.
pub struct Registry {
    entries: Vec<Box<dyn Entry>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

impl Registry {
    /// The strategies of this crate: `reinfix` (the default), `patterns`, `tracerepair`,
    /// `unidebugger`.
    #[must_use]
    pub fn builtin() -> Registry {
        Registry { entries: Vec::new() }
            .with(reinfix::entry())
            .with(patterns::entry())
            .with(tracerepair::entry())
            .with(unidebugger::entry())
    }

    /// The registry with `entry` added last.
    #[must_use]
    pub fn with(mut self, entry: Box<dyn Entry>) -> Registry {
        self.entries.push(entry);
        self
    }

    /// The names, in order; the first is the default.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.entries.iter().map(|e| e.name())
    }

    /// `cmd` with `--strategy NAME` (or a chain `NAME,NAME`) and every strategy's option
    /// group.
    #[must_use]
    pub fn augment(&self, cmd: Command) -> Command {
        let values: Vec<PossibleValue> =
            self.entries.iter().map(|e| PossibleValue::new(e.name()).help(e.about())).collect();
        let first = self.entries.first().map_or("", |e| e.name());
        let strategy = Arg::new(STRATEGY_ID)
            .long("strategy")
            .value_name("NAME")
            .default_value(first)
            .value_parser(StrategyParser(PossibleValuesParser::new(values)))
            .help(
                "Repair strategy (each one's options are under its own heading), or a chain run in order until one \
                 makes the bug plausible, e.g. `patterns,reinfix` (a model is needed when any stage calls one)",
            );
        self.entries.iter().fold(cmd.arg(strategy), |cmd, e| e.augment(cmd))
    }

    /// The strategy `--strategy` names in `matches` (parsed by a command [`Self::augment`]
    /// made), built from its options.
    ///
    /// A name with commas is a [`Chain`] of the named strategies, each built from its
    /// options as it would be alone.
    ///
    /// # Errors
    /// An unknown name (of a chain: the first unknown one); an option of another strategy
    /// (of none of a chain's stages) given on the command line; options the strategy
    /// refuses together; a chain that names a strategy twice, names fewer than two or holds
    /// one that seeks no patch ([`Chain::new`]).
    pub fn build(&self, matches: &ArgMatches) -> Result<Box<dyn Strategy>, UnknownStrategy> {
        let name = matches.get_one::<String>(STRATEGY_ID).map_or("", String::as_str);
        if name.contains(',') {
            return self.build_chain(name, matches);
        }
        let chosen = self.entry(name)?;
        self.refuse_foreign(&[chosen], name, matches)?;
        chosen.build(matches).map_err(|why| UnknownStrategy::Options(name.to_string(), why))
    }

    /// The chain `chain` (`a,b`), every stage built from `matches`.
    fn build_chain(&self, chain: &str, matches: &ArgMatches) -> Result<Box<dyn Strategy>, UnknownStrategy> {
        let refused = |why: String| UnknownStrategy::Options(chain.to_string(), why);
        let names: Vec<&str> = chain.split(',').map(str::trim).collect();
        if names.iter().any(|n| n.is_empty()) {
            return Err(refused("an empty name: give the strategies as NAME,NAME".into()));
        }
        let entries = names.iter().map(|n| self.entry(n)).collect::<Result<Vec<_>, _>>()?;
        chain::check_names(&names).map_err(refused)?;
        self.refuse_foreign(&entries, chain, matches)?;
        let stages = entries
            .iter()
            .map(|e| e.build(matches).map_err(|why| UnknownStrategy::Options(e.name().to_string(), why)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Box::new(Chain::new(stages).map_err(refused)?))
    }

    /// The strategy `name` (or the chain `a,b`) with every option at its default.
    ///
    /// # Errors
    /// An unknown name; a chain [`Self::build`] refuses.
    pub fn by_name(&self, name: &str) -> Result<Box<dyn Strategy>, UnknownStrategy> {
        let cmd = self.augment(Command::new("fixdex").no_binary_name(true));
        let matches = cmd.try_get_matches_from(["--strategy", name]).map_err(|_| self.unknown(name))?;
        self.build(&matches)
    }

    /// The first strategy (the default of `--strategy`) with every option at its default.
    ///
    /// # Panics
    /// When the registry is empty or its first strategy refuses its own defaults (a bug of
    /// that strategy's entry; the builtin registry's is tested).
    #[must_use]
    pub fn default_strategy(&self) -> Box<dyn Strategy> {
        let first = self.names().next().unwrap_or_default();
        self.by_name(first).expect("the registry's first strategy builds with its defaults")
    }

    /// The entry called `name`.
    fn entry(&self, name: &str) -> Result<&dyn Entry, UnknownStrategy> {
        self.entries.iter().find(|e| e.name() == name).map(AsRef::as_ref).ok_or_else(|| self.unknown(name))
    }

    /// The error for the unknown name `name`.
    fn unknown(&self, name: &str) -> UnknownStrategy {
        UnknownStrategy::Name(name.to_string(), self.names().collect::<Vec<_>>().join(", "))
    }

    /// An error naming the first option given on the command line that only other
    /// strategies than the `chosen` ones (the stages of `name`) read, and the strategies
    /// that do.
    fn refuse_foreign(&self, chosen: &[&dyn Entry], name: &str, matches: &ArgMatches) -> Result<(), UnknownStrategy> {
        let own = chosen.iter().fold(Command::new("own"), |cmd, e| e.augment(cmd));
        let given = |a: &&Arg| matches.value_source(a.get_id().as_str()) == Some(ValueSource::CommandLine);
        for e in &self.entries {
            let group = e.augment(Command::new("group"));
            let foreign = group.get_arguments().filter(given).find(|a| !holds(&own, a.get_id().as_str()));
            if let Some(arg) = foreign {
                let owners = self.owners(arg.get_id().as_str());
                let flag = arg.get_long().map_or_else(|| arg.get_id().to_string(), |l| format!("--{l}"));
                return Err(UnknownStrategy::Foreign(flag, owners, name.to_string()));
            }
        }
        Ok(())
    }

    /// The names of the strategies whose group holds the option `id`, as `a`, `a and b`.
    fn owners(&self, id: &str) -> String {
        let names: Vec<&str> =
            self.entries.iter().filter(|e| holds(&e.augment(Command::new("group")), id)).map(|e| e.name()).collect();
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => names.join(""),
        }
    }
}

/// A `--strategy` the registry cannot build.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnknownStrategy {
    /// A name not in the registry (the name, the known ones).
    #[error("unknown strategy {0:?} (known: {1})")]
    Name(String, String),
    /// An option of other strategies (the option, its strategies, the chosen one).
    #[error("{0} applies to --strategy {1}, not {2}")]
    Foreign(String, String, String),
    /// Options the strategy refuses together (the strategy, why).
    #[error("--strategy {0}: {1}")]
    Options(String, String),
}
