package dev.shale.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict reader for the JSON the report writes (an array of flat objects of strings, numbers,
 * booleans and nulls), so tests check the bytes are valid JSON without a library. Throws
 * IllegalArgumentException naming the offset of anything else.
 */
final class MiniJson {
  private final String text;
  private int pos;

  private MiniJson(String text) {
    this.text = text;
  }

  static List<Map<String, Object>> parseArrayOfObjects(String text) {
    MiniJson json = new MiniJson(text);
    List<Map<String, Object>> objects = new ArrayList<>();
    json.expect('[');
    if (!json.consume(']')) {
      do {
        objects.add(json.object());
      } while (json.consume(','));
      json.expect(']');
    }
    json.skipSpace();
    if (json.pos != text.length()) throw json.error("trailing text");
    return objects;
  }

  private Map<String, Object> object() {
    Map<String, Object> fields = new LinkedHashMap<>();
    expect('{');
    if (consume('}')) return fields;
    do {
      skipSpace();
      String name = string();
      expect(':');
      if (fields.put(name, value()) != null) throw error("duplicate field " + name);
    } while (consume(','));
    expect('}');
    return fields;
  }

  private Object value() {
    skipSpace();
    char c = text.charAt(pos);
    if (c == '"') return string();
    if (text.startsWith("null", pos)) {
      pos += 4;
      return null;
    }
    if (text.startsWith("true", pos)) {
      pos += 4;
      return true;
    }
    if (text.startsWith("false", pos)) {
      pos += 5;
      return false;
    }
    int start = pos;
    while (pos < text.length() && "+-0123456789.eE".indexOf(text.charAt(pos)) >= 0) pos++;
    if (start == pos) throw error("expected a value");
    return Double.parseDouble(text.substring(start, pos));
  }

  private String string() {
    if (text.charAt(pos) != '"') throw error("expected a string");
    pos++;
    StringBuilder s = new StringBuilder();
    while (true) {
      char c = text.charAt(pos++);
      if (c == '"') return s.toString();
      if (c < 0x20) throw error("raw control character in a string");
      if (c != '\\') {
        s.append(c);
        continue;
      }
      char e = text.charAt(pos++);
      switch (e) {
        case '"', '\\', '/' -> s.append(e);
        case 'n' -> s.append('\n');
        case 'r' -> s.append('\r');
        case 't' -> s.append('\t');
        case 'b' -> s.append('\b');
        case 'f' -> s.append('\f');
        case 'u' -> {
          s.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
          pos += 4;
        }
        default -> throw error("bad escape \\" + e);
      }
    }
  }

  private void expect(char c) {
    if (!consume(c)) throw error("expected '" + c + "'");
  }

  private boolean consume(char c) {
    skipSpace();
    if (pos < text.length() && text.charAt(pos) == c) {
      pos++;
      return true;
    }
    return false;
  }

  private void skipSpace() {
    while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) pos++;
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException(what + " at offset " + pos);
  }
}
