//! `fixdex repair --sbfl`: the options of SBFL fault localization (Ochiai over per-test
//! coverage, `repair::fl`) and the localization they give.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use repair::fl::{JavaTarget, Localized, PythonTarget, Target};
use repair::validate::CommandSpec;
use repair::validate::toolchain;

/// SBFL options of `fixdex repair`.
#[derive(Debug, clap::Args)]
pub struct SbflArgs {
    /// Localize the fault with SBFL (Ochiai over per-test coverage, repair::fl): the top
    /// method becomes the buggy code. Python: `coverage run -m pytest` (see --sbfl-pytest-args);
    /// Java: the JaCoCo agent over --sbfl-tests after --build-cmd.
    #[arg(long)]
    pub(crate) sbfl: bool,
    /// SBFL, Python: pytest arguments (one shell-quoted string), e.g. `tests/test_x.py`.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    sbfl_pytest_args: String,
    /// SBFL: Python source folders measured, or Java source roots (repeatable) [default: .].
    #[arg(long)]
    sbfl_source: Vec<PathBuf>,
    /// SBFL, Java: JUnit 4 test classes, comma-separated (selects Java).
    #[arg(long, value_delimiter = ',')]
    sbfl_tests: Vec<String>,
    /// SBFL, Java: class-file folder the build command writes, relative to the project.
    #[arg(long)]
    sbfl_classes: Option<PathBuf>,
    /// SBFL, Java: runtime class path besides the classes (`:`-separated jars: JUnit, libraries).
    #[arg(long, default_value = "/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar")]
    sbfl_classpath: String,
    /// SBFL, Java: JaCoCo includes patterns of the classes under analysis (comma-separated).
    #[arg(long, value_delimiter = ',')]
    sbfl_includes: Vec<String>,
}

impl SbflArgs {
    /// SBFL on `project` (in a scratch copy; Java builds with `build`), each run limited to
    /// `timeout`: the top-ranked method, in `file` when given. Prints the choice on stderr.
    ///
    /// # Errors
    /// Bad SBFL options, a failed coverage run, or no ranked method.
    pub fn localize(
        &self,
        project: &Path,
        build: Option<&str>,
        file: Option<&Path>,
        timeout: Duration,
    ) -> anyhow::Result<Localized> {
        let spec = repair::fl::CoverageSpec { target: self.target(build)?, timeout };
        let fl = repair::fl::sbfl(project, &spec).context("SBFL fault localization")?;
        let file = file.map(|f| f.to_string_lossy().into_owned());
        let found = Localized::of(&fl, file.as_deref())?;
        eprintln!("{}", found.line());
        Ok(found)
    }

    /// What SBFL measures: Python (pytest under coverage.py) without `--sbfl-tests`, else Java.
    fn target(&self, build: Option<&str>) -> anyhow::Result<Target> {
        if self.sbfl_tests.is_empty() {
            return self.python().map(Target::Python);
        }
        self.java(build).map(Target::Java)
    }

    /// The Python target: `FIXDEX_PYTHON` and `--sbfl-pytest-args`.
    fn python(&self) -> anyhow::Result<PythonTarget> {
        let python = toolchain::python_from_env()
            .map_err(|(p, e)| anyhow::Error::new(e).context(format!("FIXDEX_PYTHON {}", p.display())))?;
        let pytest_args = shlex::split(&self.sbfl_pytest_args)
            .with_context(|| format!("--sbfl-pytest-args {:?}", self.sbfl_pytest_args))?;
        Ok(PythonTarget { python, pytest_args, sources: self.sbfl_source.clone() })
    }

    /// The Java target: `--sbfl-classes` (required), the class path, tests and includes.
    fn java(&self, build: Option<&str>) -> anyhow::Result<JavaTarget> {
        let classes = self.sbfl_classes.clone().context("--sbfl with --sbfl-tests (Java) needs --sbfl-classes DIR")?;
        let sources = if self.sbfl_source.is_empty() { vec![PathBuf::from(".")] } else { self.sbfl_source.clone() };
        Ok(JavaTarget {
            build: build.map(|b| CommandSpec::Shell(b.to_string())),
            classes_dir: classes,
            class_path: self.sbfl_classpath.split(':').filter(|s| !s.is_empty()).map(PathBuf::from).collect(),
            test_classes: self.sbfl_tests.clone(),
            includes: self.sbfl_includes.clone(),
            source_roots: sources,
            jacoco_dir: toolchain::jacoco_dir_from_env(),
        })
    }
}
