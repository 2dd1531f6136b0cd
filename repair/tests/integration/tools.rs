use repair::tools::Toolbox;
use serde_json::json;

#[test]
fn dump() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/toolproject");
    let tb = Toolbox::new(root);
    let calls = [
        ("identify_variable", json!({"file": "java/src/com/example/shapes/Registry.java", "variable": "best"})),
        ("identify_variable", json!({"file": "Shape.java", "variable": "name"})),
        ("find_variable_assignments", json!({"file": "Circle.java", "variable": "r"})),
        ("track_variable_dataflow", json!({"file": "Registry.java", "variable": "best", "method": "largest"})),
        ("track_variable_dataflow", json!({"file": "Registry.java", "variable": "sum"})),
        ("trace_method_usage", json!({"method": "describe"})),
        ("trace_method_usage", json!({"method": "Circle"})),
        ("analyze_method_details", json!({"file": "Registry.java", "method": "add"})),
        ("analyze_method_details", json!({"file": "Circle.java", "method": "scale"})),
        ("find_method_in_file", json!({"file": "Circle.java", "method": "scale"})),
        ("find_class_loc", json!({"class": "Circle"})),
        ("identify_class", json!({"class": "Circle"})),
        ("identify_class", json!({"class": "Shape"})),
        ("get_imports", json!({"file": "Main.java"})),
        ("identify_variable", json!({"file": "python/geometry/app.py", "variable": "count"})),
        ("find_variable_assignments", json!({"file": "python/geometry/app.py", "variable": "count"})),
        ("track_variable_dataflow", json!({"file": "python/geometry/app.py", "variable": "count"})),
        ("track_variable_dataflow", json!({"file": "python/geometry/utils.py", "variable": "total"})),
        ("trace_method_usage", json!({"method": "clamp"})),
        ("analyze_method_details", json!({"file": "python/geometry/app.py", "method": "main"})),
        ("find_method_in_file", json!({"file": "python/geometry/vectors.py", "method": "Vector.scaled"})),
        ("find_class_loc", json!({"class": "Vector"})),
        ("identify_class", json!({"class": "Vector"})),
        ("get_imports", json!({"file": "python/geometry/app.py"})),
        ("track_variable_dataflow", json!({"file": "python/geometry/vectors.py", "variable": "result"})),
        ("identify_variable", json!({"file": "python/geometry/vectors.py", "variable": "self.x"})),
    ];
    for (name, args) in calls {
        println!("===== {name} {args}");
        match tb.call(name, &args) {
            Ok(s) => println!("{s}"),
            Err(e) => println!("ERROR: {e}"),
        }
    }
}
