import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.config.Setting;

/**
 * Runs a Neo4j Community DBMS (jars from Maven Central) with Bolt on 127.0.0.1:<port>, auth off,
 * for local development and tests. Started by scripts/neo4j.sh. Compiles against 5.26 LTS and 2025+/2026.x:
 * settings that only some versions have are set by name through reflection.
 * Usage: java -cp 'classes:lib/*' EmbeddedNeo4j <homeDir> [port] [pageCacheMiB]
 */
public final class EmbeddedNeo4j {
    private static final String INTERNAL = "org.neo4j.configuration.GraphDatabaseInternalSettings";

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: EmbeddedNeo4j <homeDir> [port] [pageCacheMiB]");
            System.exit(2);
        }
        Path home = Path.of(args[0]).toAbsolutePath();
        int port = Integer.parseInt(args.length > 1 ? args[1] : env("NEO4J_PORT", "7687"));
        long pageCacheMiB = Long.parseLong(args.length > 2 ? args[2] : env("NEO4J_PAGECACHE_MB", "256"));
        SocketAddress bolt = new SocketAddress("127.0.0.1", port);

        DatabaseManagementServiceBuilder builder = new DatabaseManagementServiceBuilder(home)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, bolt)
                .setConfig(BoltConnector.advertised_address, bolt)
                .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                .setConfig(GraphDatabaseSettings.auth_enabled, false)
                .setConfig(GraphDatabaseSettings.pagecache_memory, pageCacheMiB * 1024 * 1024)
                .setConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                .setConfig(GraphDatabaseSettings.udc_enabled, false); // dbms.usage_report.enabled: no phoning home
        // Nothing may leave the machine: no usage reports, no LAN discovery broadcasts (2025+), no Aura fleet manager (2025+).
        setIfPresent(builder, INTERNAL, "udc_network_enabled", false);
        setIfPresent(builder, "org.neo4j.configuration.connectors.BoltConnector", "enable_discovery", false);
        setIfPresent(builder, "org.neo4j.fleetmanagement.FleetManagementSettings", "fleet_manager_enabled", false);
        // Netty's graceful-shutdown quiet period (5 s, paid twice per stop): a Duration in 2025+, int seconds in 5.26.
        setIfPresent(builder, INTERNAL, "netty_server_shutdown_quiet_period", Duration.ZERO);
        DatabaseManagementService dbms = builder.build(); // starts the DBMS and the Bolt connector

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> { // SIGTERM / SIGINT
            System.out.println("NEO4J STOPPING");
            dbms.shutdown();
            System.out.println("NEO4J STOPPED");
            stopped.countDown();
        }, "neo4j-shutdown"));

        String db = GraphDatabaseSettings.DEFAULT_DATABASE_NAME;
        if (!dbms.database(db).isAvailable(TimeUnit.MINUTES.toMillis(3))) {
            System.err.println("NEO4J FAILED: database '" + db + "' not available");
            System.exit(1);
        }
        System.out.println("NEO4J READY bolt://127.0.0.1:" + port);
        stopped.await();
    }

    @SuppressWarnings("unchecked")
    private static void setIfPresent(DatabaseManagementServiceBuilder b, String holder, String field, Object value) {
        try {
            Setting<Object> setting = (Setting<Object>) Class.forName(holder).getField(field).get(null);
            if (value instanceof Duration d && setting.defaultValue() instanceof Integer) {
                value = (int) d.toSeconds();
            }
            b.setConfig(setting, value);
        } catch (ReflectiveOperationException absentInThisVersion) {
            // e.g. fleet discovery / fleet manager do not exist in 5.26
        }
    }

    private static String env(String name, String fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : v;
    }
}
