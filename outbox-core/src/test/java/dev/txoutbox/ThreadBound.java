package dev.txoutbox;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source that hands out one connection, owned by the test, on every call, and ignores {@code
 * close()}: how Spring's {@code TransactionAwareDataSourceProxy} behaves inside a transaction.
 */
final class ThreadBound {
  private ThreadBound() {}

  static DataSource dataSource(Connection bound) {
    Connection unclosable =
        (Connection)
            Proxy.newProxyInstance(
                Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("close")) {
                    return null;
                  }
                  try {
                    return method.invoke(bound, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    return new DataSource() {
      @Override
      public Connection getConnection() {
        return unclosable;
      }

      @Override
      public Connection getConnection(String user, String password) {
        return unclosable;
      }

      @Override
      public PrintWriter getLogWriter() {
        return null;
      }

      @Override
      public void setLogWriter(PrintWriter out) {}

      @Override
      public void setLoginTimeout(int seconds) {}

      @Override
      public int getLoginTimeout() {
        return 0;
      }

      @Override
      public Logger getParentLogger() {
        return Logger.getGlobal();
      }

      @Override
      public <T> T unwrap(Class<T> type) {
        throw new UnsupportedOperationException();
      }

      @Override
      public boolean isWrapperFor(Class<?> type) {
        return false;
      }
    };
  }
}
