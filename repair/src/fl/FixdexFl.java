// fixdex fault localization helper (repair::fl): per-test line coverage of JUnit 4 tests.
// Compiled by javac at run time (the Rust crate embeds this file with include_str!).
//
//   java -cp <helper>:<org.jacoco.agent.jar> FixdexFl extract-agent <dest jar>
//   java -javaagent:<jacocoagent.jar>=output=none,includes=<pattern> \
//        -cp <helper>:<jacoco core + asm>:<project classes>:<junit> \
//        FixdexFl run <classes dir> <out .jsonl> <test class>...
//
// `run` runs the test classes in this JVM with JUnitCore. Before each test it resets the
// agent's execution data; after it, it analyzes the data against the class files under
// <classes dir> and appends one JSON line: {"test":"Class#method","outcome":"passed"|
// "failed"|"skipped","message":...,"covered":[{"file":"pkg/Src.java","lines":[..]},..]}.
// Lines count as covered when JaCoCo marks them partly or fully covered. Exit code 0 when
// the run finished (whatever the test outcomes), 2 on usage errors.
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import org.jacoco.agent.rt.IAgent;
import org.jacoco.agent.rt.RT;
import org.jacoco.core.analysis.Analyzer;
import org.jacoco.core.analysis.CoverageBuilder;
import org.jacoco.core.analysis.IClassCoverage;
import org.jacoco.core.analysis.ICounter;
import org.jacoco.core.data.ExecutionData;
import org.jacoco.core.data.ExecutionDataReader;
import org.jacoco.core.data.ExecutionDataStore;
import org.jacoco.core.data.SessionInfoStore;
import org.junit.runner.Description;
import org.junit.runner.JUnitCore;
import org.junit.runner.Request;
import org.junit.runner.notification.Failure;
import org.junit.runner.notification.RunListener;

public final class FixdexFl {
    private FixdexFl() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("extract-agent")) {
            org.jacoco.agent.AgentJar.extractTo(new File(args[1]));
            return;
        }
        if (args.length < 4 || !args[0].equals("run")) {
            System.err.println("usage: FixdexFl extract-agent DEST | run CLASSES_DIR OUT TEST_CLASS...");
            System.exit(2);
        }
        File classes = new File(args[1]);
        try (PrintWriter out = new PrintWriter(
                new OutputStreamWriter(new FileOutputStream(args[2]), StandardCharsets.UTF_8))) {
            JUnitCore core = new JUnitCore();
            core.addListener(new Listener(RT.getAgent(), classes, out));
            for (int i = 3; i < args.length; i++) {
                Class<?> test = Class.forName(args[i]);
                core.run(Request.aClass(test));
            }
        }
        // A timed-out test may leave a thread running; do not wait for it.
        System.exit(0);
    }

    /** Collects per-test coverage and writes one JSON line per test. */
    static final class Listener extends RunListener {
        private final IAgent agent;
        private final File classes;
        private final PrintWriter out;
        private String outcome;
        private String message;

        Listener(IAgent agent, File classes, PrintWriter out) {
            this.agent = agent;
            this.classes = classes;
            this.out = out;
        }

        @Override
        public void testStarted(Description d) {
            agent.getExecutionData(true);
            outcome = "passed";
            message = null;
        }

        @Override
        public void testFailure(Failure f) {
            outcome = "failed";
            message = String.valueOf(f.getMessage());
        }

        @Override
        public void testAssumptionFailure(Failure f) {
            outcome = "skipped";
        }

        @Override
        public void testIgnored(Description d) {
            line(d, "skipped", null, new TreeMap<String, TreeSet<Integer>>());
        }

        @Override
        public void testFinished(Description d) throws Exception {
            byte[] data = agent.getExecutionData(true);
            line(d, outcome, message, covered(data));
        }

        private synchronized void line(Description d, String outcome, String message,
                Map<String, TreeSet<Integer>> covered) {
            StringBuilder s = new StringBuilder("{\"test\":");
            quote(s, d.getClassName() + "#" + d.getMethodName());
            s.append(",\"outcome\":");
            quote(s, outcome);
            if (message != null) {
                s.append(",\"message\":");
                quote(s, message.length() > 500 ? message.substring(0, 500) : message);
            }
            s.append(",\"covered\":[");
            boolean first = true;
            for (Map.Entry<String, TreeSet<Integer>> e : covered.entrySet()) {
                s.append(first ? "" : ",").append("{\"file\":");
                quote(s, e.getKey());
                s.append(",\"lines\":").append(e.getValue().toString().replace(" ", "")).append('}');
                first = false;
            }
            out.println(s.append("]}"));
            out.flush();
        }

        /** Covered lines by source file (`package/dir/Source.java`) in `data`. */
        private Map<String, TreeSet<Integer>> covered(byte[] data) throws IOException {
            ExecutionDataStore store = new ExecutionDataStore();
            ExecutionDataReader reader = new ExecutionDataReader(new ByteArrayInputStream(data));
            reader.setExecutionDataVisitor(store);
            reader.setSessionInfoVisitor(new SessionInfoStore());
            reader.read();
            CoverageBuilder builder = new CoverageBuilder();
            Analyzer analyzer = new Analyzer(store, builder);
            for (ExecutionData e : store.getContents()) {
                File f = new File(classes, e.getName() + ".class");
                if (!e.hasHits() || !f.isFile()) {
                    continue;
                }
                try (InputStream in = new FileInputStream(f)) {
                    analyzer.analyzeClass(in, f.getPath());
                }
            }
            Map<String, TreeSet<Integer>> covered = new TreeMap<>();
            for (IClassCoverage c : builder.getClasses()) {
                if (c.getSourceFileName() == null || c.getFirstLine() < 0) {
                    continue;
                }
                String pkg = c.getPackageName();
                String file = pkg.isEmpty() ? c.getSourceFileName() : pkg + "/" + c.getSourceFileName();
                for (int l = c.getFirstLine(); l <= c.getLastLine(); l++) {
                    int status = c.getLine(l).getStatus();
                    if (status == ICounter.FULLY_COVERED || status == ICounter.PARTLY_COVERED) {
                        covered.computeIfAbsent(file, k -> new TreeSet<>()).add(l);
                    }
                }
            }
            return covered;
        }
    }

    private static void quote(StringBuilder s, String v) {
        s.append('"');
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c == '"' || c == '\\') {
                s.append('\\').append(c);
            } else if (c < 0x20) {
                s.append(String.format("\\u%04x", (int) c));
            } else {
                s.append(c);
            }
        }
        s.append('"');
    }
}
