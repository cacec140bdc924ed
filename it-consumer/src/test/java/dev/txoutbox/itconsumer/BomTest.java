package dev.txoutbox.itconsumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/** The BOM names every module the reactor publishes, so a new module cannot be left out of it. */
class BomTest {

  private static final Path ROOT = Path.of(System.getProperty("txoutbox.root", ".."));

  @Test
  void bomListsEveryPublishedModuleAtTheProjectVersion() throws Exception {
    Document root = read(ROOT.resolve("pom.xml"));
    List<String> published = new ArrayList<>();
    for (Element module : children(root.getDocumentElement(), "modules", "module")) {
      Document pom = read(ROOT.resolve(module.getTextContent().trim()).resolve("pom.xml"));
      String artifactId = text(pom.getDocumentElement(), "artifactId");
      if (!artifactId.equals("txoutbox-bom") && !deploySkipped(pom)) {
        published.add(artifactId);
      }
    }
    Document bom = read(ROOT.resolve("txoutbox-bom").resolve("pom.xml"));
    List<String> managed = new ArrayList<>();
    for (Element dependency :
        children(bom.getDocumentElement(), "dependencyManagement", "dependencies", "dependency")) {
      assertThat(text(dependency, "groupId")).isEqualTo("dev.txoutbox");
      assertThat(text(dependency, "version")).isEqualTo("${project.version}");
      managed.add(text(dependency, "artifactId"));
    }

    assertThat(published).contains("outbox-core", "publisher-sqs");
    assertThat(managed).containsExactlyInAnyOrderElementsOf(published);
    assertThat(text(bom.getDocumentElement(), "version"))
        .isEqualTo(text(root.getDocumentElement(), "version"));
  }

  private static boolean deploySkipped(Document pom) {
    for (Element properties : children(pom.getDocumentElement(), "properties")) {
      NodeList skip = properties.getElementsByTagName("maven.deploy.skip");
      if (skip.getLength() > 0 && skip.item(0).getTextContent().trim().equals("true")) {
        return true;
      }
    }
    return false;
  }

  private static Document read(Path pom) throws Exception {
    assertThat(pom).exists();
    try (var in = Files.newInputStream(pom)) {
      return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(in);
    }
  }

  /** The elements at the end of the path of child names below {@code from}. */
  private static List<Element> children(Element from, String... path) {
    List<Element> level = List.of(from);
    for (String name : path) {
      List<Element> next = new ArrayList<>();
      for (Element element : level) {
        for (Node child = element.getFirstChild(); child != null; child = child.getNextSibling()) {
          if (child instanceof Element e && e.getTagName().equals(name)) {
            next.add(e);
          }
        }
      }
      level = next;
    }
    return level;
  }

  private static String text(Element from, String name) {
    List<Element> found = children(from, name);
    assertThat(found).as("<%s> in <%s>", name, from.getTagName()).hasSize(1);
    return found.get(0).getTextContent().trim();
  }
}
