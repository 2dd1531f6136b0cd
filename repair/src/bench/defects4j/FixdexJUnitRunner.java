// fixdex's JUnit runner for Defects4J bugs (repair::bench::defects4j): runs single test
// methods (`Class::method`) and whole classes (`Class`) with JUnit 4 (JUnit 3 TestCases
// included), in two phases: the tests before `--`, then, only when all of those pass, the
// tests after it. Arguments may come from files (`@FILE`, one per line). `--exclude FILE`
// names `Class::method`s never run (tests that fail on the fixed version); `--failures FILE`
// writes the failing tests there, `Class::method` per line (no cap, unlike the output).
// `--timings FILE` writes the wall time of each phase that ran, ms, one per line.
// `--first-phase-limit-ms N`: when the first phase (the trigger tests) has not ended N ms
// after the runner started, the test running then is reported as failed ("timed out after N
// ms", as JUnit's own test timeout words it) and the runner exits 124 (timeout(1)'s code for
// a timeout) at once: a candidate that makes a trigger test loop costs N ms, not the whole
// run's limit, which is scaled from every relevant test's time.
// Output: JUnitCore's text format (`N) method(Class)` per failure, `OK (N tests)` or
// `Tests run: N,  Failures: M`), which fixdex's test-output reader parses. Exit 0 when every
// test that ran passed, 1 otherwise, 2 on a usage error, 124 past the first phase's limit.
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
import org.junit.runner.notification.RunListener;

public final class FixdexJUnitRunner {
    private FixdexJUnitRunner() {}

    /** Failures so far; the watchdog reads them, so every access holds the list's lock. */
    private static final List<Failure> FAILURES = new ArrayList<>();
    /** Tests run so far (under FAILURES' lock). */
    private static int run = 0;
    /** The test running now, for the watchdog's report (null between tests). */
    private static volatile Description current = null;
    /** Set when the first phase has ended (the watchdog then does nothing). */
    private static volatile boolean firstPhaseDone = false;
    private static String failuresFile = null;
    private static final long START = System.currentTimeMillis();

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
        String timingsFile = null;
        long firstPhaseLimit = 0;
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
            } else if (a.equals("--timings")) {
                if (i + 1 >= args.size()) usage("--timings needs a file");
                timingsFile = args.get(++i);
            } else if (a.equals("--first-phase-limit-ms")) {
                if (i + 1 >= args.size()) usage("--first-phase-limit-ms needs a number");
                try {
                    firstPhaseLimit = Long.parseLong(args.get(++i));
                } catch (NumberFormatException e) {
                    usage("--first-phase-limit-ms needs a number, not " + args.get(i));
                }
            } else if (a.equals("--")) {
                phases.add(new ArrayList<String>());
            } else {
                phases.get(phases.size() - 1).add(a);
            }
        }
        if (firstPhaseLimit > 0) watch(firstPhaseLimit);
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
        RunListener tracker = new RunListener() {
            @Override
            public void testStarted(Description d) {
                current = d;
            }

            @Override
            public void testFinished(Description d) {
                current = null;
            }
        };
        StringBuilder timings = new StringBuilder();
        for (List<String> phase : phases) {
            long phaseStart = System.currentTimeMillis();
            for (String test : phase) {
                Request request;
                int sep = test.indexOf("::");
                String cls = sep < 0 ? test : test.substring(0, sep);
                Class<?> c;
                try {
                    c = Class.forName(cls, false, FixdexJUnitRunner.class.getClassLoader());
                } catch (ClassNotFoundException | LinkageError e) {
                    synchronized (FAILURES) {
                        FAILURES.add(new Failure(Description.createTestDescription(cls, "initializationError"), e));
                        run++;
                    }
                    continue;
                }
                request = sep < 0 ? Request.aClass(c) : Request.method(c, test.substring(sep + 2));
                if (!excluded.isEmpty()) request = request.filterWith(skip);
                JUnitCore core = new JUnitCore();
                core.addListener(tracker);
                Result result = core.run(request);
                synchronized (FAILURES) {
                    run += result.getRunCount();
                    FAILURES.addAll(result.getFailures());
                }
            }
            timings.append(System.currentTimeMillis() - phaseStart).append('\n');
            firstPhaseDone = true;
            synchronized (FAILURES) {
                if (!FAILURES.isEmpty()) break;
            }
        }
        if (timingsFile != null) {
            Files.write(Paths.get(timingsFile), timings.toString().getBytes(StandardCharsets.UTF_8));
        }
        synchronized (FAILURES) {
            finish(FAILURES.isEmpty() ? 0 : 1);
        }
    }

    /**
     * Starts the first phase's watchdog: past {@code limit} ms from the runner's start, the
     * running test fails as timed out and the runner halts with 124 (no test's finally block
     * or shutdown hook can keep it alive).
     */
    private static void watch(final long limit) {
        Thread dog = new Thread(new Runnable() {
            @Override
            public void run() {
                long left;
                while ((left = START + limit - System.currentTimeMillis()) > 0 && !firstPhaseDone) {
                    try {
                        Thread.sleep(Math.min(left, 100));
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (firstPhaseDone) return;
                synchronized (FAILURES) {
                    if (firstPhaseDone) return;
                    Description d = current;
                    if (d == null) d = Description.createTestDescription("FixdexJUnitRunner", "firstPhase");
                    FAILURES.add(new Failure(d, new Exception("test timed out after " + limit + " milliseconds")));
                    run++;
                    try {
                        finish(124);
                    } catch (IOException e) {
                        Runtime.getRuntime().halt(124);
                    }
                }
            }
        }, "fixdex-first-phase-watchdog");
        dog.setDaemon(true);
        dog.start();
    }

    /**
     * Writes the failures file and JUnitCore's summary, then exits with {@code code} (halts
     * for 124: a looping test thread must not hold the JVM). The caller holds FAILURES' lock.
     */
    private static void finish(int code) throws IOException {
        PrintStream out = System.out;
        List<Failure> failures = FAILURES;
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
        out.println("Time: " + (System.currentTimeMillis() - START) / 1000.0);
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
        if (code == 124) Runtime.getRuntime().halt(code);
        System.exit(code);
    }

    private static void usage(String why) {
        System.err.println("FixdexJUnitRunner: " + why);
        System.err.println("usage: FixdexJUnitRunner [--exclude FILE] [--failures FILE] [--timings FILE] [--first-phase-limit-ms N] TEST... [-- TEST...]  (TEST: Class or Class::method, @FILE)");
        System.exit(2);
    }
}
