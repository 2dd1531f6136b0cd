//! repair::tools on the fixture project (exact answers for all nine tools in Java and
//! Python), on QuixBugs (`shared_*`, needs FIXDEX_SHARED), and on malformed calls.

use std::path::PathBuf;

use repair::tools::{ToolConfig, ToolError, Toolbox};
use serde_json::{Value, json};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/toolproject");
const SHAPES: &str = "java/src/com/example/shapes";

fn fixture() -> Toolbox {
    Toolbox::with_config(FIXTURE, ToolConfig { max_output_chars: 100_000 })
}

fn ask(tools: &Toolbox, name: &str, args: &Value) -> String {
    tools.call(name, args).unwrap_or_else(|e| panic!("{name} {args}: {e}"))
}

/// Asserts that every expected line occurs in `text`, as a whole line.
fn has_lines(text: &str, expected: &[&str]) {
    for line in expected {
        assert!(text.lines().any(|l| l == *line), "missing line {line:?} in:\n{text}");
    }
}

mod java {
    use super::*;

    #[test]
    fn identify_variable_lists_declarations_and_uses() {
        let text = ask(
            &fixture(),
            "identify_variable",
            &json!({"file": format!("{SHAPES}/Registry.java"), "variable": "best"}),
        );
        has_lines(
            &text,
            &[
                "  java/src/com/example/shapes/Registry.java:17 local variable `best` of type Shape in Registry.largest",
                "    17:         Shape best = null;",
                "  java/src/com/example/shapes/Registry.java:19 use in Registry.largest",
                "  java/src/com/example/shapes/Registry.java:20 assignment in Registry.largest",
                "  java/src/com/example/shapes/Registry.java:23 use in Registry.largest",
            ],
        );
    }

    #[test]
    fn identify_variable_treats_this_field_as_the_field() {
        let text = ask(&fixture(), "identify_variable", &json!({"file": "Shape.java", "variable": "name"}));
        has_lines(
            &text,
            &[
                "  java/src/com/example/shapes/Shape.java:7 field `name` of type String in class Shape",
                "  java/src/com/example/shapes/Shape.java:10 parameter `name` of type String in Shape.Shape",
                "  java/src/com/example/shapes/Shape.java:11 assignment, use in Shape.Shape",
                "  java/src/com/example/shapes/Shape.java:17 use in Shape.describe",
            ],
        );
    }

    #[test]
    fn find_variable_assignments_covers_declarations_and_compound_ops() {
        let text = ask(&fixture(), "find_variable_assignments", &json!({"file": "Circle.java", "variable": "r"}));
        assert_eq!(
            text,
            "assignments to `r` in java/src/com/example/shapes/Circle.java: 2\n\
             \x20 java/src/com/example/shapes/Circle.java:21 local variable value `radius * factor` in Circle.scale\n\
             \x20   21:         double r = radius * factor;\n\
             \x20 java/src/com/example/shapes/Circle.java:22 += value `extra` in Circle.scale\n\
             \x20   22:         r += extra;"
        );
    }

    #[test]
    fn dataflow_joins_loop_branches() {
        let args = json!({"file": "Registry.java", "variable": "best", "method": "largest"});
        let text = ask(&fixture(), "track_variable_dataflow", &args);
        has_lines(
            &text,
            &[
                "  D1 java/src/com/example/shapes/Registry.java:17 local variable",
                "  D2 java/src/com/example/shapes/Registry.java:20 assignment from s",
                "  java/src/com/example/shapes/Registry.java:19 condition of if; reached by D1, D2",
                "  java/src/com/example/shapes/Registry.java:19 argument to compareTo(); reached by D1, D2",
                "  java/src/com/example/shapes/Registry.java:23 receiver of describe(); reached by D1, D2",
                "values of `best` come from: s",
            ],
        );
    }

    #[test]
    fn dataflow_of_compound_assignment_in_while() {
        let text = ask(&fixture(), "track_variable_dataflow", &json!({"file": "Registry.java", "variable": "sum"}));
        has_lines(
            &text,
            &[
                "  D2 java/src/com/example/shapes/Registry.java:30 += from shapes, i",
                "  java/src/com/example/shapes/Registry.java:30 read by +=; reached by D1, D2",
                "  java/src/com/example/shapes/Registry.java:33 returned; reached by D1, D2",
                "values of `sum` come from: i, shapes",
            ],
        );
    }

    #[test]
    fn trace_method_usage_finds_callers_in_two_classes() {
        let text = ask(&fixture(), "trace_method_usage", &json!({"method": "describe"}));
        has_lines(
            &text,
            &[
                "  java/src/com/example/shapes/Shape.java:16-18 public String describe()",
                "call sites of `describe`: 2 (matched by name; receivers and overloads are not type-resolved)",
                "  java/src/com/example/shapes/Main.java:12 in Main.main",
                "  java/src/com/example/shapes/Registry.java:23 in Registry.largest",
            ],
        );
        let ctor = ask(&fixture(), "trace_method_usage", &json!({"method": "Circle"}));
        has_lines(
            &ctor,
            &[
                "  java/src/com/example/shapes/Circle.java:23 in Circle.scale",
                "  java/src/com/example/shapes/Main.java:9 in Main.main",
            ],
        );
    }

    #[test]
    fn analyze_method_details_reports_every_overload() {
        let text = ask(&fixture(), "analyze_method_details", &json!({"file": "Circle.java", "method": "Circle.scale"}));
        has_lines(
            &text,
            &[
                "java/src/com/example/shapes/Circle.java:16-18 Circle.scale",
                "signature: public Circle scale(double factor)",
                "  java/src/com/example/shapes/Circle.java:17 scale(): scale(factor, 1.0)",
                "java/src/com/example/shapes/Circle.java:20-24 Circle.scale",
                "signature: public Circle scale(double factor, double extra)",
                "return type: Circle",
                "  java/src/com/example/shapes/Circle.java:20 extra: double",
                "  java/src/com/example/shapes/Circle.java:21 r: double",
                "  java/src/com/example/shapes/Circle.java:23 Circle() on new: new Circle(name + \"'\", r)",
            ],
        );
        let add = ask(&fixture(), "analyze_method_details", &json!({"file": "Registry.java", "method": "add"}));
        has_lines(
            &add,
            &[
                "  java/src/com/example/shapes/Registry.java:9 declares throws IllegalArgumentException",
                "  java/src/com/example/shapes/Registry.java:11 throws: throw new IllegalArgumentException(\"null shape\");",
                "  java/src/com/example/shapes/Registry.java:13 add() on shapes: shapes.add(shape)",
                "  java/src/com/example/shapes/Registry.java:10 if: if (shape == null) {",
            ],
        );
    }

    /// A parameter list picks one overload (`Circle.scale(double, double)`); one that no
    /// overload has lists them with their parameters.
    #[test]
    fn a_parameter_list_picks_the_overload() {
        let args = json!({"file": "Circle.java", "method": "scale(double, double)"});
        for tool in ["find_method_in_file", "analyze_method_details"] {
            let text = ask(&fixture(), tool, &args);
            assert!(text.contains("Circle.java:20-24 Circle.scale") && !text.contains("Circle.java:16-18"), "{text}");
        }
        let args = json!({"file": "Circle.java", "method": "scale(int)"});
        let err = fixture().call("find_method_in_file", &args).unwrap_err().to_string();
        assert!(err.contains("scale(double) line 16") && err.contains("scale(double, double) line 20"), "{err}");
    }

    #[test]
    fn find_method_in_file_returns_numbered_source() {
        let text = ask(&fixture(), "find_method_in_file", &json!({"file": "Circle.java", "method": "area"}));
        assert_eq!(
            text,
            "java/src/com/example/shapes/Circle.java:11-14 Circle.area\n11:     @Override\n12:     public double area() {\n\
             13:         return Math.PI * radius * radius;\n14:     }"
        );
    }

    #[test]
    fn find_class_loc_and_identify_class() {
        let tools = fixture();
        assert_eq!(
            ask(&tools, "find_class_loc", &json!({"class": "Circle"})),
            "java/src/com/example/shapes/Circle.java:3-25 class Circle"
        );
        let text = ask(&tools, "identify_class", &json!({"class": "com.example.shapes.Shape"}));
        has_lines(
            &text,
            &[
                "java/src/com/example/shapes/Shape.java:6-24 class Shape",
                "declaration: public abstract class Shape implements Comparable<Shape>",
                "superclass: (none)",
                "interfaces: Comparable<Shape>",
                "  java/src/com/example/shapes/Shape.java:7 protected String name;",
                "  java/src/com/example/shapes/Shape.java:8 private int version = 0;",
                "  java/src/com/example/shapes/Shape.java:14-14 public abstract double area();",
                "  java/src/com/example/shapes/Shape.java:20-23 @Override public int compareTo(Shape other)",
            ],
        );
        has_lines(&ask(&tools, "identify_class", &json!({"class": "Circle"})), &["superclass: Shape"]);
    }

    #[test]
    fn get_imports_lists_package_and_imports() {
        assert_eq!(
            ask(&fixture(), "get_imports", &json!({"file": "Main.java"})),
            "imports of java/src/com/example/shapes/Main.java: 2\n\
             \x20 java/src/com/example/shapes/Main.java:1 package com.example.shapes;\n\
             \x20 java/src/com/example/shapes/Main.java:3 import java.util.*;\n\
             \x20 java/src/com/example/shapes/Main.java:4 import static java.lang.Math.max;"
        );
    }
}

mod python {
    use super::*;

    const APP: &str = "python/geometry/app.py";

    #[test]
    fn identify_variable_takes_first_binding_as_definition() {
        let text = ask(&fixture(), "identify_variable", &json!({"file": APP, "variable": "count"}));
        has_lines(
            &text,
            &[
                "  python/geometry/app.py:7 assignment `count` in main",
                "  python/geometry/app.py:8 use in main",
                "  python/geometry/app.py:9 assignment in main",
                "  python/geometry/app.py:11 assignment, use in main",
                "  python/geometry/app.py:17 use in main",
            ],
        );
        let attr =
            ask(&fixture(), "identify_variable", &json!({"file": "python/geometry/vectors.py", "variable": "self.x"}));
        has_lines(
            &attr,
            &[
                "  python/geometry/vectors.py:8 assignment `self.x` in Vector.__init__",
                "  python/geometry/vectors.py:12 use in Vector.norm",
            ],
        );
    }

    #[test]
    fn find_variable_assignments_lists_values() {
        let text = ask(&fixture(), "find_variable_assignments", &json!({"file": APP, "variable": "count"}));
        has_lines(
            &text,
            &[
                "assignments to `count` in python/geometry/app.py: 3",
                "  python/geometry/app.py:7 assignment value `len(argv)` in main",
                "  python/geometry/app.py:9 assignment value `2` in main",
                "  python/geometry/app.py:11 assignment value `u.clamp(count, 0, 1)` in main",
            ],
        );
    }

    #[test]
    fn dataflow_joins_if_else() {
        let text =
            ask(&fixture(), "track_variable_dataflow", &json!({"file": APP, "variable": "count", "method": "main"}));
        has_lines(
            &text,
            &[
                "  D1 python/geometry/app.py:7 assignment from argv",
                "  D3 python/geometry/app.py:11 assignment from u, count",
                "  python/geometry/app.py:8 condition of if; reached by D1",
                "  python/geometry/app.py:11 argument to clamp(); reached by D1",
                "  python/geometry/app.py:12 argument to Vector(); reached by D2, D3",
                "  python/geometry/app.py:17 returned; reached by D2, D3",
            ],
        );
        let result = ask(&fixture(), "track_variable_dataflow", &json!({"file": "vectors.py", "variable": "result"}));
        has_lines(
            &result,
            &[
                "  python/geometry/vectors.py:21 flows into result; reached by D1",
                "  python/geometry/vectors.py:22 returned; reached by D2",
            ],
        );
    }

    #[test]
    fn trace_method_usage_across_modules() {
        let text = ask(&fixture(), "trace_method_usage", &json!({"method": "clamp"}));
        has_lines(
            &text,
            &[
                "  python/geometry/utils.py:4-9 def clamp(x, lo, hi)",
                "call sites of `clamp`: 3 (matched by name; receivers and overloads are not type-resolved)",
                "  python/geometry/app.py:11 in main",
                "  python/geometry/utils.py:16 in total_length",
                "  python/geometry/vectors.py:15 in Vector.scaled",
            ],
        );
        has_lines(
            &ask(&fixture(), "trace_method_usage", &json!({"method": "main"})),
            &["  python/geometry/app.py:21 in <module level>"],
        );
    }

    #[test]
    fn analyze_method_details_of_function() {
        let text = ask(&fixture(), "analyze_method_details", &json!({"file": APP, "method": "main"}));
        has_lines(
            &text,
            &[
                "python/geometry/app.py:6-17 main",
                "signature: def main(argv)",
                "return type: (not annotated)",
                "  python/geometry/app.py:6 argv",
                "  python/geometry/app.py:7 count",
                "  python/geometry/app.py:15 err",
                "  python/geometry/app.py:14 dot(): dot(v, v)",
                "  python/geometry/app.py:15 handles: except ValueError as err",
                "  python/geometry/app.py:16 throws: raise RuntimeError(\"bad vector\") from err",
                "  python/geometry/app.py:13 try: try:",
            ],
        );
        assert!(!text.contains("app.py:15 ValueError"), "{text}");
        let norm = ask(&fixture(), "analyze_method_details", &json!({"file": "vectors.py", "method": "norm"}));
        has_lines(&norm, &["return type: float"]);
    }

    #[test]
    fn find_method_in_file_by_qualified_name() {
        assert_eq!(
            ask(
                &fixture(),
                "find_method_in_file",
                &json!({"file": "python/geometry/vectors.py", "method": "Vector.scaled"})
            ),
            "python/geometry/vectors.py:14-16 Vector.scaled\n14:     def scaled(self, factor):\n\
             15:         factor = clamp(factor, -10, 10)\n16:         return Vector(self.x * factor, self.y * factor)"
        );
    }

    #[test]
    fn find_class_loc_and_identify_class() {
        assert_eq!(
            ask(&fixture(), "find_class_loc", &json!({"class": "Vector"})),
            "python/geometry/vectors.py:4-16 class Vector"
        );
        let text = ask(&fixture(), "identify_class", &json!({"class": "Vector", "file": "python/geometry/vectors.py"}));
        has_lines(
            &text,
            &[
                "superclass: object",
                "  python/geometry/vectors.py:5 class attribute: dims = 2",
                "  python/geometry/vectors.py:8 instance attribute self.x: self.x = x",
                "  python/geometry/vectors.py:9 instance attribute self.y: self.y = y",
                "  python/geometry/vectors.py:11-12 def norm(self) -> float",
            ],
        );
    }

    #[test]
    fn get_imports_lists_every_form() {
        assert_eq!(
            ask(&fixture(), "get_imports", &json!({"file": APP})),
            "imports of python/geometry/app.py: 3\n\
             \x20 python/geometry/app.py:1 import sys\n\
             \x20 python/geometry/app.py:2 from geometry.vectors import Vector, dot\n\
             \x20 python/geometry/app.py:3 from geometry import utils as u"
        );
    }
}

mod errors {
    use super::*;

    fn error(name: &str, args: &Value) -> ToolError {
        match fixture().call(name, args) {
            Ok(text) => panic!("{name} {args} answered:\n{text}"),
            Err(e) => e,
        }
    }

    #[test]
    fn unknown_tool_lists_the_nine() {
        let e = error("grep", &json!({}));
        assert!(matches!(e, ToolError::UnknownTool { .. }));
        assert!(e.to_string().contains("identify_variable, find_variable_assignments"), "{e}");
    }

    #[test]
    fn missing_and_malformed_arguments() {
        assert!(
            matches!(error("get_imports", &json!({})), ToolError::MissingArgument { ref argument, .. } if argument == "file")
        );
        assert!(matches!(
            error("find_method_in_file", &json!({"file": "Circle.java", "method": ""})),
            ToolError::MissingArgument { .. }
        ));
        assert!(matches!(error("get_imports", &json!("Main.java")), ToolError::InvalidArguments { .. }));
    }

    #[test]
    fn paths_outside_the_root_are_refused() {
        assert!(matches!(error("get_imports", &json!({"file": "/etc/passwd"})), ToolError::PathOutsideRoot { .. }));
        assert!(matches!(
            error("get_imports", &json!({"file": "../../Cargo.toml"})),
            ToolError::PathOutsideRoot { .. }
        ));
        assert!(matches!(
            error("get_imports", &json!({"file": "java/../../x.java"})),
            ToolError::PathOutsideRoot { .. }
        ));
    }

    #[test]
    fn missing_file_unsupported_extension_and_skipped_dirs() {
        assert!(matches!(error("get_imports", &json!({"file": "Nope.java"})), ToolError::FileNotFound { .. }));
        assert!(matches!(error("get_imports", &json!({"file": "notes.txt"})), ToolError::UnsupportedLanguage { .. }));
        assert!(matches!(error("find_class_loc", &json!({"class": "Ignored"})), ToolError::ClassNotFound { .. }));
        assert!(matches!(error("find_class_loc", &json!({"class": "Hidden"})), ToolError::ClassNotFound { .. }));
    }

    #[test]
    fn unknown_method_lists_candidates() {
        let e = error("find_method_in_file", &json!({"file": "Circle.java", "method": "perimeter"}));
        assert_eq!(
            e.to_string(),
            "method `perimeter` not found in java/src/com/example/shapes/Circle.java; methods there: Circle.Circle, Circle.area, Circle.scale"
        );
        let e = error("analyze_method_details", &json!({"file": "python/geometry/utils.py", "method": "Vector.norm"}));
        assert!(e.to_string().ends_with("methods there: clamp, total_length"), "{e}");
    }

    #[test]
    fn unknown_class_and_variable_list_what_exists() {
        let e = error("identify_class", &json!({"class": "Square"}));
        assert!(e.to_string().contains("classes defined: Circle, Main, Registry, Shape, Vector"), "{e}");
        let e = error("identify_variable", &json!({"file": "Circle.java", "variable": "diameter"}));
        assert!(e.to_string().ends_with("variables assigned there: extra, factor, name, r, radius"), "{e}");
        let e = error("track_variable_dataflow", &json!({"file": "Circle.java", "variable": "r", "method": "area"}));
        assert!(matches!(e, ToolError::VariableNotFound { .. }), "{e}");
    }

    #[test]
    fn output_is_truncated_with_a_notice() {
        let tools = Toolbox::with_config(FIXTURE, ToolConfig { max_output_chars: 200 });
        let text = tools
            .call("find_method_in_file", &json!({"file": "Registry.java", "method": "largest"}))
            .unwrap_or_default();
        assert!(text.len() <= 200, "{}", text.len());
        assert!(text.starts_with(
            "java/src/com/example/shapes/Registry.java:16-24 Registry.largest\n16:     public String largest() {"
        ));
        let kept = text.lines().count() - 1;
        assert!(text.ends_with(&format!("... [truncated: {} more lines]", 10 - kept)), "{text}");
    }

    #[test]
    fn edited_files_are_parsed_again() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
        let path = dir.path().join("m.py");
        std::fs::write(&path, "def f():\n    return 1\n").unwrap_or_else(|e| panic!("{e}"));
        let tools = Toolbox::new(dir.path());
        assert!(
            ask(&tools, "find_method_in_file", &json!({"file": "m.py", "method": "f"})).contains("2:     return 1")
        );
        std::fs::write(&path, "def f():\n    return 2\n").unwrap_or_else(|e| panic!("{e}"));
        assert!(
            ask(&tools, "find_method_in_file", &json!({"file": "m.py", "method": "f"})).contains("2:     return 2")
        );
    }

    #[test]
    fn dataflow_follows_break_and_return() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
        let code = "def f(xs):\n    found = None\n    for x in xs:\n        if x > 0:\n            found = x\n            break\n    return found\n\n\ndef g(a):\n    y = 1\n    if a:\n        y = 2\n        return y\n    return y\n";
        std::fs::write(dir.path().join("m.py"), code).unwrap_or_else(|e| panic!("{e}"));
        let tools = Toolbox::new(dir.path());
        let f = ask(&tools, "track_variable_dataflow", &json!({"file": "m.py", "variable": "found"}));
        has_lines(&f, &["  m.py:7 returned; reached by D1, D2", "  D2 m.py:5 assignment from x"]);
        let g = ask(&tools, "track_variable_dataflow", &json!({"file": "m.py", "variable": "y", "method": "g"}));
        has_lines(&g, &["  m.py:14 returned; reached by D2", "  m.py:15 returned; reached by D1"]);
    }

    #[test]
    fn specs_name_the_nine_tools_with_object_schemas() {
        let specs = fixture().specs();
        assert_eq!(specs.len(), 9);
        for spec in &specs {
            assert_eq!(spec.parameters["type"], "object", "{}", spec.name);
            for required in spec.parameters["required"].as_array().into_iter().flatten() {
                assert!(spec.parameters["properties"].get(required.as_str().unwrap_or("")).is_some(), "{}", spec.name);
            }
            assert!(spec.description.len() > 80, "{}", spec.name);
        }
    }
}

/// QuixBugs from `$FIXDEX_SHARED/benchmarks/quixbugs` (fail, never skip, without it).
mod shared {
    use super::*;

    fn quixbugs() -> PathBuf {
        let root = crate::common::shared_path("benchmarks/quixbugs");
        assert!(
            root.join("java_programs/BITCOUNT.java").is_file(),
            "QuixBugs sources missing under {}",
            root.display()
        );
        root
    }

    /// The 40 buggy programs of one language: (relative path, main method name).
    fn programs(root: &std::path::Path, dir: &str, ext: &str) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = std::fs::read_dir(root.join(dir))
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .filter_map(|name| Some((name.strip_suffix(ext)?.to_string(), name)))
            .filter(|(stem, _)| !stem.ends_with("_test") && !matches!(stem.as_str(), "Node" | "WeightedEdge" | "node"))
            .map(|(stem, name)| (format!("{dir}/{name}"), stem.to_lowercase()))
            .collect();
        out.sort();
        out
    }

    #[test]
    fn shared_quixbugs_tools_answer_on_every_program() {
        let root = quixbugs();
        let tools = Toolbox::new(&root);
        for (dir, ext) in [("java_programs", ".java"), ("python_programs", ".py")] {
            let programs = programs(&root, dir, ext);
            assert_eq!(programs.len(), 40, "{dir}: {programs:?}");
            for (file, method) in programs {
                let source = ask(&tools, "find_method_in_file", &json!({"file": file, "method": method}));
                assert!(source.starts_with(&format!("{file}:")), "{source}");
                ask(&tools, "get_imports", &json!({"file": file}));
                ask(&tools, "analyze_method_details", &json!({"file": file, "method": method}));
                if ext == ".java" {
                    let class = file.trim_start_matches("java_programs/").trim_end_matches(".java");
                    ask(&tools, "identify_class", &json!({"class": class, "file": file}));
                }
            }
        }
    }

    #[test]
    fn shared_quixbugs_bitcount_facts() {
        let tools = Toolbox::new(quixbugs());
        let file = "java_programs/BITCOUNT.java";
        let assigned = ask(&tools, "find_variable_assignments", &json!({"file": file, "variable": "n"}));
        has_lines(
            &assigned,
            &[
                "  java_programs/BITCOUNT.java:15 assignment value `(n ^ (n - 1))` in BITCOUNT.bitcount",
                "    15:         n = (n ^ (n - 1));",
            ],
        );
        let flow =
            ask(&tools, "track_variable_dataflow", &json!({"file": file, "variable": "n", "method": "bitcount"}));
        has_lines(
            &flow,
            &[
                "  D1 java_programs/BITCOUNT.java:12 parameter",
                "  java_programs/BITCOUNT.java:14 condition of while; reached by D1, D2",
            ],
        );
        let class = ask(&tools, "identify_class", &json!({"class": "BITCOUNT", "file": file}));
        has_lines(&class, &["  java_programs/BITCOUNT.java:12-19 public static int bitcount(int n)"]);
    }

    #[test]
    fn shared_quixbugs_gcd_calls_itself() {
        let tools = Toolbox::new(quixbugs());
        let text = ask(&tools, "trace_method_usage", &json!({"method": "gcd"}));
        has_lines(
            &text,
            &[
                "  python_programs/gcd.py:1-5 def gcd(a, b)",
                "  python_programs/gcd.py:5 in gcd",
                "    5:         return gcd(a % b, b)",
            ],
        );
        has_lines(&text, &["  java_programs/GCD.java:15-21 public static int gcd(int a, int b)"]);
        let details =
            ask(&tools, "analyze_method_details", &json!({"file": "python_programs/gcd.py", "method": "gcd"}));
        has_lines(&details, &["  python_programs/gcd.py:5 gcd(): gcd(a % b, b)"]);
    }

    #[test]
    fn shared_quixbugs_node_class_and_imports() {
        let tools = Toolbox::new(quixbugs());
        has_lines(
            &ask(&tools, "find_class_loc", &json!({"class": "Node"})),
            &["java_programs/Node.java:4-67 class Node"],
        );
        has_lines(
            &ask(&tools, "get_imports", &json!({"file": "java_programs/Node.java"})),
            &["  java_programs/Node.java:2 import java.util.*;"],
        );
        let bfs = ask(&tools, "get_imports", &json!({"file": "python_programs/breadth_first_search.py"}));
        has_lines(&bfs, &["  python_programs/breadth_first_search.py:2 from collections import deque as Queue"]);
    }
}

/// With the run's scratch filter ([`repair::bench::quixbugs::scratch_filter`]), the tools never
/// list, search or read QuixBugs' correct programs, which would leak the fix; without it
/// they do.
#[test]
fn the_scratch_filter_keeps_correct_programs_from_the_tools() {
    use repair::tools::Toolbox;
    use serde_json::json;
    let dir = tempfile::tempdir().unwrap();
    for (rel, text) in [
        (
            "java_programs/GCD.java",
            "package java_programs;\npublic class GCD {\n    public static int gcd(int a, int b) { return a; }\n}\n",
        ),
        (
            "correct_java_programs/GCD.java",
            "package correct_java_programs;\npublic class GCD {\n    public static int gcd(int a, int b) { return b; }\n}\n",
        ),
    ] {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let open = Toolbox::new(dir.path());
    let seen = open.call("find_class_loc", &json!({"class": "GCD"})).unwrap_or_else(|e| e.to_string());
    assert!(seen.contains("correct_java_programs"), "{seen}");
    let filtered = Toolbox::new(dir.path())
        .with_skip(repair::bench::quixbugs::scratch_filter(repair::bench::quixbugs::Lang::Java));
    let seen = filtered.call("find_class_loc", &json!({"class": "GCD"})).unwrap_or_else(|e| e.to_string());
    assert!(seen.contains("java_programs/GCD.java") && !seen.contains("correct_"), "{seen}");
    let read =
        filtered.call("find_method_in_file", &json!({"file": "correct_java_programs/GCD.java", "method": "gcd"}));
    assert!(
        read.is_err_and(|e| e.to_string().contains("correct_java_programs/GCD.java")),
        "a filtered file is not read"
    );
}

/// Issue 31: a repair location by name (`--method`) with a parameter list picks one
/// overload; a bare name that several methods have is refused, listing them with their
/// parameters and lines.
mod locations {
    use std::path::Path;

    use repair::tools::{ToolError, methods_named, resolve_method};

    const FACTORY: &str = r#"package org.example;

import java.io.InputStream;
import java.util.List;
import java.util.Map;

public class Factory {
    public Object createArchiveInputStream(final String archiverName, final InputStream in) {
        return archiverName;
    }

    public Object createArchiveInputStream(final InputStream in) {
        return in;
    }

    static int count(Map<String, List<Integer>> byName, int... extra) {
        return byName.size() + extra.length;
    }

    static int count(java.util.Set<String> names) {
        return names.size();
    }

    class Inner {
        int size(int[] xs) { return xs.length; }
    }

    int size(int xs[]) { return xs.length; }
}
"#;

    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/Factory.java"), FACTORY).unwrap();
        std::fs::write(dir.path().join("src/gcd.py"), "class G:\n    def gcd(self, a, b):\n        return a\n")
            .unwrap();
        dir
    }

    fn lines(root: &Path, method: &str) -> (usize, usize) {
        resolve_method(root, Path::new("src/Factory.java"), method)
            .unwrap_or_else(|e| panic!("{method}: {e}"))
            .lines
            .into()
    }

    #[test]
    fn issue_31_a_parameter_list_picks_the_overload() {
        let dir = project();
        let root = dir.path();
        assert_eq!(lines(root, "createArchiveInputStream(InputStream)"), (12, 14));
        assert_eq!(lines(root, "createArchiveInputStream( java.io.InputStream )"), (12, 14));
        assert_eq!(lines(root, "Factory.createArchiveInputStream(String,InputStream)"), (8, 10));
        // Generics as written (whitespace aside), or left out; varargs as `...` or `[]`.
        assert_eq!(lines(root, "count(Map<String, List<Integer>>, int...)"), (16, 18));
        assert_eq!(lines(root, "count(Map<String,List<Integer>>, int[])"), (16, 18));
        assert_eq!(lines(root, "count(Map, int...)"), (16, 18));
        assert_eq!(lines(root, "count(Set<String>)"), (20, 22));
        // Methods of different classes: the owner or the parameters tell them apart.
        assert_eq!(lines(root, "Inner.size"), (25, 25));
        assert_eq!(lines(root, "Factory.size(int[])"), (28, 28));
        // Python: parameters by name, `self` optional.
        let py = |m: &str| resolve_method(root, Path::new("src/gcd.py"), m).map(|s| s.lines.first);
        assert_eq!((py("gcd(a, b)").unwrap(), py("G.gcd(self, a, b)").unwrap(), py("gcd").unwrap()), (2, 2, 2));
        assert!(py("gcd(x)").is_err());
    }

    #[test]
    fn issue_31_an_ambiguous_name_is_refused_listing_the_overloads() {
        let dir = project();
        let e = resolve_method(dir.path(), Path::new("src/Factory.java"), "createArchiveInputStream").unwrap_err();
        let ToolError::AmbiguousMethod { candidates, example, .. } = &e else { panic!("{e}") };
        assert_eq!(
            candidates,
            &["createArchiveInputStream(String, InputStream) line 8", "createArchiveInputStream(InputStream) line 12"]
        );
        assert_eq!(example.as_deref(), Some("createArchiveInputStream(InputStream)"));
        assert_eq!(
            e.to_string(),
            "method `createArchiveInputStream` is ambiguous in src/Factory.java: createArchiveInputStream(String, \
             InputStream) line 8, createArchiveInputStream(InputStream) line 12; give one with its parameter types, \
             e.g. `createArchiveInputStream(InputStream)`"
        );
        // Different classes: the listing qualifies the names.
        let e = resolve_method(dir.path(), Path::new("src/Factory.java"), "size").unwrap_err();
        let ToolError::AmbiguousMethod { candidates, .. } = &e else { panic!("{e}") };
        assert_eq!(candidates, &["Inner.size(int[]) line 25", "Factory.size(int[]) line 28"]);
        // The library's lenient form keeps every match, first first.
        let all = methods_named(dir.path(), Path::new("src/Factory.java"), "count").unwrap();
        assert_eq!(
            all.iter().map(|m| m.signature()).collect::<Vec<_>>(),
            ["Factory.count(Map<String, List<Integer>>, int...)", "Factory.count(java.util.Set<String>)"]
        );
    }

    /// A workflow given a bare name that several methods have (a library caller; the CLI
    /// refuses it) repairs the first and says so in the report's warnings; with a parameter
    /// list it locates the overload named.
    #[test]
    fn issue_31_a_run_on_an_ambiguous_name_warns_and_a_parameter_list_locates() {
        use repair::run::bug::{Bug, Location};
        use repair::validate::{CommandSpec, Validator};
        let dir = project();
        let run = |method: &str| {
            let bug = Bug {
                id: None,
                root: dir.path().to_path_buf(),
                file: "src/Factory.java".into(),
                location: Location::Method(method.into()),
                failing_tests: Vec::new(),
            };
            let validator = Validator {
                build: Some(CommandSpec::Shell("false".into())),
                test: CommandSpec::Shell("false".into()),
                timeout: std::time::Duration::from_secs(30),
                env: Vec::new(),
                reference: None,
                fail_fast: None,
            };
            let client = repair::llm::ScriptedClient::new(Vec::new());
            let config = repair::run::config::RunConfig { model: "none".into(), ..Default::default() };
            let patterns = Box::new(repair::strategies::patterns::Patterns::default());
            repair::run::workflow::Workflow::new(&client, None, validator, config).with_strategy(patterns).run(&bug)
        };
        let r = run("createArchiveInputStream");
        assert_eq!(r.buggy_lines, Some((8, 10)));
        let warned = r.warnings.iter().find(|w| w.contains("names 2 methods")).unwrap_or_else(|| panic!("{r:#?}"));
        assert!(warned.contains("createArchiveInputStream(InputStream) line 12"), "{warned}");
        assert_eq!(run("createArchiveInputStream(InputStream)").buggy_lines, Some((12, 14)));
    }

    #[test]
    fn issue_31_parameters_that_no_overload_has_list_the_overloads() {
        let dir = project();
        let e = resolve_method(dir.path(), Path::new("src/Factory.java"), "count(String)").unwrap_err();
        assert_eq!(
            e.to_string(),
            "method `count(String)` not found in src/Factory.java; methods there: count(Map<String, List<Integer>>, \
             int...) line 16, count(java.util.Set<String>) line 20"
        );
        let e = resolve_method(dir.path(), Path::new("src/Factory.java"), "nope(int)").unwrap_err();
        assert!(matches!(e, ToolError::MethodNotFound { .. }) && e.to_string().contains("Factory.count"), "{e}");
    }
}
