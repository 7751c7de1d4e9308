// Limits a crawler with Tollgate from Java: one POST /v1/hit to tollgated per request, with the
// JDK's own java.net.http.HttpClient (Java 17 or later; no other dependency).
//
//   java TollgateCrawlerLimit.java http://127.0.0.1:8080 crawl bot-7 5
//
// sends 5 hits of the action "crawl" for the user "bot-7" and prints one line per decision.
// tollgated answers 200 when allowed, 429 when not (with Retry-After), 404 for an action without
// a policy, 400 for a bad request and 503 when Redis cannot answer and its failure policy is
// "report". See examples/java/README.md.
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class TollgateCrawlerLimit {

    /** What tollgated decided for one hit: the fields of its JSON reply this example uses. */
    record Decision(int status, boolean allowed, String tier, long remaining, long retryAfterMs,
                    String message, String retryAfterHeader) {}

    private final HttpClient http = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(2))
            .build();
    private final URI hitUri;

    TollgateCrawlerLimit(String baseUrl) {
        hitUri = URI.create(baseUrl + "/v1/hit");
    }

    /** One hit of `action` for `user`; the request's deadline keeps a slow network from blocking the crawler. */
    Decision hit(String action, String user) throws IOException, InterruptedException {
        String body = "{\"action\":" + quote(action) + ",\"user\":" + quote(user) + "}";
        HttpRequest request = HttpRequest.newBuilder(hitUri)
                .timeout(Duration.ofSeconds(2))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200 && response.statusCode() != 429)
            throw new IOException("tollgated answered " + response.statusCode() + ": " + response.body());
        String json = response.body();
        return new Decision(response.statusCode(),
                "true".equals(field(json, "allowed")),
                field(json, "tier"),
                Long.parseLong(field(json, "remaining")),
                Long.parseLong(field(json, "retry_after_ms")),
                field(json, "message"),
                response.headers().firstValue("Retry-After").orElse(""));
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: java TollgateCrawlerLimit.java <tollgated URL> <action> <user> <hits>");
            System.exit(2);
        }
        TollgateCrawlerLimit limiter = new TollgateCrawlerLimit(args[0]);
        for (int i = 0; i < Integer.parseInt(args[3]); i++) {
            Decision d = limiter.hit(args[1], args[2]);
            if (d.allowed())
                System.out.printf("allowed tier=%s remaining=%d%n", d.tier(), d.remaining());
            else
                System.out.printf("denied status=%d tier=%s retry_after=%s message=%s%n",
                        d.status(), d.tier(), d.retryAfterHeader(), d.message());
        }
    }

    // tollgated's reply is one flat JSON object of strings, numbers and booleans, so a pattern
    // per field is enough here; a real application would use its JSON library.
    static String field(String json, String name) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(name)
                + "\"\\s*:\\s*(\"((?:[^\"\\\\]|\\\\.)*)\"|[-0-9.a-z]+)").matcher(json);
        if (!m.find())
            return "";
        return m.group(2) != null ? m.group(2).replace("\\\"", "\"").replace("\\\\", "\\") : m.group(1);
    }

    static String quote(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\')
                out.append('\\').append(c);
            else if (c < 0x20)
                out.append(String.format("\\u%04x", (int) c));
            else
                out.append(c);
        }
        return out.append('"').toString();
    }
}
