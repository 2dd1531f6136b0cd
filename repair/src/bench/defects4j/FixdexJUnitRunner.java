// fixdex's JUnit runner for Defects4J bugs (repair::bench::defects4j): runs single test
// methods (`Class::method`) and whole classes (`Class`) with JUnit 4 (JUnit 3 TestCases
// included), in two phases: the tests before `--`, then, only when all of those pass, the
// tests after it. Arguments may come from files (`@FILE`, one per line). `--exclude FILE`
// names `Class::method`s never run (tests that fail on the fixed version); `--failures FILE`
// writes the failing tests there, `Class::method` per line (no cap, unlike the output).
// Output: JUnitCore's text format (`N) method(Class)` per failure, `OK (N tests)` or
// `Tests run: N,  Failures: M`), which fixdex's test-output reader parses. Exit 0 when every
// test that ran passed, 1 otherwise, 2 on a usage error.
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.runner.Description;
import org.junit.runner.JUnitCore;
import org.junit.runner.Request;
import org.junit.runner.Result;
import org.junit.runner.manipulation.Filter;
import org.junit.runner.notification.Failure;

public final class FixdexJUnitRunner {
    private FixdexJUnitRunner() {}

    public static void main(String[] argv) throws IOException {
        List<String> args = new ArrayList<>();
        for (String a : argv) {
            if (a.startsWith("@")) {
                for (String line : Files.readAllLines(Paths.get(a.substring(1)), StandardCharsets.UTF_8)) {
                    if (!line.trim().isEmpty()) args.add(line.trim());
                }
            } else {
                args.add(a);
            }
        }
        final Set<String> excluded = new HashSet<>();
        String failuresFile = null;
        List<List<String>> phases = new ArrayList<>();
        phases.add(new ArrayList<String>());
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--exclude")) {
                if (i + 1 >= args.size()) usage("--exclude needs a file");
                for (String line : Files.readAllLines(Paths.get(args.get(++i)), StandardCharsets.UTF_8)) {
                    if (!line.trim().isEmpty()) excluded.add(line.trim());
                }
            } else if (a.equals("--failures")) {
                if (i + 1 >= args.size()) usage("--failures needs a file");
                failuresFile = args.get(++i);
            } else if (a.equals("--")) {
                phases.add(new ArrayList<String>());
            } else {
                phases.get(phases.size() - 1).add(a);
            }
        }
        PrintStream out = System.out;
        List<Failure> failures = new ArrayList<>();
        int run = 0;
        long start = System.currentTimeMillis();
        Filter skip = new Filter() {
            @Override
            public boolean shouldRun(Description d) {
                return !d.isTest() || !excluded.contains(d.getClassName() + "::" + d.getMethodName());
            }

            @Override
            public String describe() {
                return "tests not excluded";
            }
        };
        for (List<String> phase : phases) {
            for (String test : phase) {
                Request request;
                int sep = test.indexOf("::");
                String cls = sep < 0 ? test : test.substring(0, sep);
                Class<?> c;
                try {
                    c = Class.forName(cls, false, FixdexJUnitRunner.class.getClassLoader());
                } catch (ClassNotFoundException | LinkageError e) {
                    failures.add(new Failure(Description.createTestDescription(cls, "initializationError"), e));
                    run++;
                    continue;
                }
                request = sep < 0 ? Request.aClass(c) : Request.method(c, test.substring(sep + 2));
                if (!excluded.isEmpty()) request = request.filterWith(skip);
                Result result = new JUnitCore().run(request);
                run += result.getRunCount();
                failures.addAll(result.getFailures());
            }
            if (!failures.isEmpty()) break;
        }
        if (failuresFile != null) {
            StringBuilder names = new StringBuilder();
            for (Failure f : failures) {
                Description d = f.getDescription();
                String method = d.getMethodName() == null ? "initializationError" : d.getMethodName();
                names.append(d.getClassName()).append("::").append(method).append('\n');
            }
            Files.write(Paths.get(failuresFile), names.toString().getBytes(StandardCharsets.UTF_8));
        }
        out.println();
        out.println("Time: " + (System.currentTimeMillis() - start) / 1000.0);
        if (failures.isEmpty()) {
            out.println();
            out.println("OK (" + run + " test" + (run == 1 ? "" : "s") + ")");
            out.flush();
            System.exit(0);
        }
        out.println(failures.size() == 1 ? "There was 1 failure:" : "There were " + failures.size() + " failures:");
        int n = 1;
        for (Failure f : failures) {
            Description d = f.getDescription();
            String method = d.getMethodName() == null ? "initializationError" : d.getMethodName();
            out.println(n++ + ") " + method + "(" + d.getClassName() + ")");
            out.print(f.getTrace());
        }
        out.println();
        out.println("FAILURES!!!");
        out.println("Tests run: " + run + ",  Failures: " + failures.size());
        out.flush();
        System.exit(1);
    }

    private static void usage(String why) {
        System.err.println("FixdexJUnitRunner: " + why);
        System.err.println("usage: FixdexJUnitRunner [--exclude FILE] [--failures FILE] TEST... [-- TEST...]  (TEST: Class or Class::method, @FILE)");
        System.exit(2);
    }
}
