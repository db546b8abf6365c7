/*
 * skade: start the Apache Iceberg REST fixture (org.apache.iceberg.rest.RESTCatalogServer from the
 * runnable iceberg-open-api jar on Maven Central) bound to one host address only.
 *
 * The fixture's own main() listens on every interface (Jetty `new Server(port)`) and has no host
 * setting. This launcher builds the same handler chain (the fixture's backend catalog, its
 * RESTServerCatalogAdapter, RESTCatalogServlet, a GzipHandler) but with a connector bound to
 * REST_FIXTURE_HOST (default 127.0.0.1). All catalog configuration still comes from the fixture's
 * usual CATALOG_* environment variables (CATALOG_REST_PORT, CATALOG_WAREHOUSE, CATALOG_URI, ...).
 *
 * Run in Java source-file mode with the fixture jar on the class path:
 *   java -cp iceberg-open-api-<v>.jar bench/peers/RestFixtureLoopback.java
 */

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.Map;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.gzip.GzipHandler;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;

public class RestFixtureLoopback {
  public static void main(String[] args) throws Exception {
    String host = System.getenv().getOrDefault("REST_FIXTURE_HOST", "127.0.0.1");

    // The fixture's classes are package-private; reach them by reflection (same unnamed module).
    Class<?> serverClass = Class.forName("org.apache.iceberg.rest.RESTCatalogServer");
    Class<?> contextClass = Class.forName("org.apache.iceberg.rest.RESTCatalogServer$CatalogContext");
    Class<?> adapterClass = Class.forName("org.apache.iceberg.rest.RESTServerCatalogAdapter");
    Class<?> baseAdapterClass = Class.forName("org.apache.iceberg.rest.RESTCatalogAdapter");
    Class<?> servletClass = Class.forName("org.apache.iceberg.rest.RESTCatalogServlet");

    Constructor<?> serverCtor = serverClass.getDeclaredConstructor();
    serverCtor.setAccessible(true);
    Object fixture = serverCtor.newInstance();

    // Reads CATALOG_* env vars, creates the JdbcCatalog backend (in-memory SQLite by default).
    Method init = serverClass.getDeclaredMethod("initializeBackendCatalog");
    init.setAccessible(true);
    Object context = init.invoke(fixture);

    Method configuration = contextClass.getDeclaredMethod("configuration");
    configuration.setAccessible(true);
    @SuppressWarnings("unchecked")
    Map<String, String> config = (Map<String, String>) configuration.invoke(context);
    int port = Integer.parseInt(config.getOrDefault("rest.port", "8181"));

    Constructor<?> adapterCtor = adapterClass.getDeclaredConstructor(contextClass);
    adapterCtor.setAccessible(true);
    Object adapter = adapterCtor.newInstance(context);
    Object servlet = servletClass.getConstructor(baseAdapterClass).newInstance(adapter);

    ServletContextHandler handler = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
    handler.addServlet(new ServletHolder((jakarta.servlet.Servlet) servlet), "/*");
    handler.insertHandler(new GzipHandler());

    Server http = new Server();
    ServerConnector connector = new ServerConnector(http);
    connector.setHost(host);
    connector.setPort(port);
    http.addConnector(connector);
    http.setHandler(handler);
    http.setStopAtShutdown(true);
    http.start();
    System.err.println("rest-fixture listening on http://" + host + ":" + connector.getLocalPort());
    http.join();
  }
}
