#include "common/json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace plugstack::json {

namespace {

const Value kNull;
const Array kEmptyArray;
const Object kEmptyObject;

// Length of the valid UTF-8 sequence starting at s[i], or 0 if invalid.
size_t utf8SequenceLength(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  size_t n;
  uint32_t cp;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) { n = 2; cp = c & 0x1F; }
  else if (c >= 0xE0 && c <= 0xEF) { n = 3; cp = c & 0x0F; }
  else if (c >= 0xF0 && c <= 0xF4) { n = 4; cp = c & 0x07; }
  else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; k++) {
    unsigned char cc = byte(i + k);
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3F);
  }
  // Reject overlong forms, surrogates and values past U+10FFFF.
  if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
}

void appendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  bool document(Value* out, std::string* error) {
    skipSpace();
    if (!value(out, 0)) {
      *error = error_ + " at offset " + std::to_string(pos_);
      return false;
    }
    skipSpace();
    if (pos_ != s_.size()) {
      *error = "trailing characters at offset " + std::to_string(pos_);
      return false;
    }
    return true;
  }

 private:
  // Deep nesting is refused rather than recursing without bound.
  static constexpr int kMaxDepth = 64;

  bool fail(const char* what) {
    error_ = what;
    return false;
  }

  void skipSpace() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      pos_++;
  }

  bool literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return fail("invalid literal");
    pos_ += word.size();
    return true;
  }

  bool value(Value* out, int depth) {
    if (depth > kMaxDepth) return fail("nesting too deep");
    if (pos_ >= s_.size()) return fail("unexpected end of input");
    char c = s_[pos_];
    switch (c) {
      case 'n': *out = Value(); return literal("null");
      case 't': *out = Value(true); return literal("true");
      case 'f': *out = Value(false); return literal("false");
      case '"': {
        std::string str;
        if (!string(&str)) return false;
        *out = Value(std::move(str));
        return true;
      }
      case '[': return array(out, depth);
      case '{': return object(out, depth);
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return number(out);
        return fail("unexpected character");
    }
  }

  bool number(Value* out) {
    size_t start = pos_;
    if (s_[pos_] == '-') pos_++;
    auto digits = [&] {
      size_t d = pos_;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') pos_++;
      return pos_ > d;
    };
    if (!digits()) return fail("invalid number");
    if (pos_ < s_.size() && s_[pos_] == '.') {
      pos_++;
      if (!digits()) return fail("invalid number");
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      pos_++;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) pos_++;
      if (!digits()) return fail("invalid number");
    }
    std::string text(s_.substr(start, pos_ - start));
    *out = Value(std::strtod(text.c_str(), nullptr));
    return true;
  }

  bool hex4(uint32_t* cp) {
    if (pos_ + 4 > s_.size()) return fail("truncated \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
      char h = s_[pos_++];
      v <<= 4;
      if (h >= '0' && h <= '9') v |= h - '0';
      else if (h >= 'a' && h <= 'f') v |= h - 'a' + 10;
      else if (h >= 'A' && h <= 'F') v |= h - 'A' + 10;
      else return fail("invalid \\u escape");
    }
    *cp = v;
    return true;
  }

  bool string(std::string* out) {
    pos_++;  // opening quote
    while (true) {
      if (pos_ >= s_.size()) return fail("unterminated string");
      unsigned char c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        pos_++;
        return true;
      }
      if (c < 0x20) return fail("control character in string");
      if (c != '\\') {
        out->push_back(static_cast<char>(c));
        pos_++;
        continue;
      }
      pos_++;
      if (pos_ >= s_.size()) return fail("unterminated escape");
      char e = s_[pos_++];
      switch (e) {
        case '"': out->push_back('"'); break;
        case '\\': out->push_back('\\'); break;
        case '/': out->push_back('/'); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'n': out->push_back('\n'); break;
        case 'r': out->push_back('\r'); break;
        case 't': out->push_back('\t'); break;
        case 'u': {
          uint32_t cp;
          if (!hex4(&cp)) return false;
          if (cp >= 0xDC80 && cp <= 0xDCFF) {
            // A lone low surrogate in this range is an escaped raw byte.
            out->push_back(static_cast<char>(cp - 0xDC00));
          } else if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t lo;
            if (pos_ + 2 > s_.size() || s_[pos_] != '\\' || s_[pos_ + 1] != 'u')
              return fail("unpaired surrogate");
            pos_ += 2;
            if (!hex4(&lo)) return false;
            if (lo < 0xDC00 || lo > 0xDFFF) return fail("unpaired surrogate");
            appendUtf8(*out, 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00));
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return fail("unpaired surrogate");
          } else {
            appendUtf8(*out, cp);
          }
          break;
        }
        default:
          return fail("invalid escape");
      }
    }
  }

  bool array(Value* out, int depth) {
    pos_++;
    Array items;
    skipSpace();
    if (pos_ < s_.size() && s_[pos_] == ']') {
      pos_++;
      *out = Value(std::move(items));
      return true;
    }
    while (true) {
      Value v;
      skipSpace();
      if (!value(&v, depth + 1)) return false;
      items.push_back(std::move(v));
      skipSpace();
      if (pos_ >= s_.size()) return fail("unterminated array");
      if (s_[pos_] == ',') { pos_++; continue; }
      if (s_[pos_] == ']') { pos_++; break; }
      return fail("expected , or ]");
    }
    *out = Value(std::move(items));
    return true;
  }

  bool object(Value* out, int depth) {
    pos_++;
    Object members;
    skipSpace();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      pos_++;
      *out = Value(std::move(members));
      return true;
    }
    while (true) {
      skipSpace();
      if (pos_ >= s_.size() || s_[pos_] != '"') return fail("expected member name");
      std::string key;
      if (!string(&key)) return false;
      skipSpace();
      if (pos_ >= s_.size() || s_[pos_] != ':') return fail("expected :");
      pos_++;
      skipSpace();
      Value v;
      if (!value(&v, depth + 1)) return false;
      members.emplace_back(std::move(key), std::move(v));
      skipSpace();
      if (pos_ >= s_.size()) return fail("unterminated object");
      if (s_[pos_] == ',') { pos_++; continue; }
      if (s_[pos_] == '}') { pos_++; break; }
      return fail("expected , or }");
    }
    *out = Value(std::move(members));
    return true;
  }

  std::string_view s_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

const Array& Value::asArray() const { return arr_ ? *arr_ : kEmptyArray; }
const Object& Value::asObject() const { return obj_ ? *obj_ : kEmptyObject; }

const Value& Value::operator[](std::string_view key) const {
  if (kind_ != Kind::Object || !obj_) return kNull;
  for (const auto& [k, v] : *obj_)
    if (k == key) return v;
  return kNull;
}

void quoteTo(std::string& out, std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  out += '"';
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      size_t n = utf8SequenceLength(s, i);
      if (n == 0) {
        uint32_t escaped = 0xDC00 + c;
        out += "\\u";
        for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(escaped >> shift) & 0xF];
        i++;
      } else {
        out.append(s.substr(i, n));
        i += n;
      }
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else {
          out += static_cast<char>(c);
        }
    }
    i++;
  }
  out += '"';
}

void Value::dumpTo(std::string& out) const {
  switch (kind_) {
    case Kind::Null: out += "null"; break;
    case Kind::Bool: out += bool_ ? "true" : "false"; break;
    case Kind::Number: {
      if (!std::isfinite(num_)) {
        out += "null";
      } else if (num_ == std::floor(num_) && std::fabs(num_) < 9.007199254740992e15) {
        out += std::to_string(static_cast<long long>(num_));
      } else {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.17g", num_);
        out += buf;
      }
      break;
    }
    case Kind::String: quoteTo(out, str_); break;
    case Kind::Array: {
      out += '[';
      bool first = true;
      for (const auto& v : asArray()) {
        if (!first) out += ',';
        first = false;
        v.dumpTo(out);
      }
      out += ']';
      break;
    }
    case Kind::Object: {
      out += '{';
      bool first = true;
      for (const auto& [k, v] : asObject()) {
        if (!first) out += ',';
        first = false;
        quoteTo(out, k);
        out += ':';
        v.dumpTo(out);
      }
      out += '}';
      break;
    }
  }
}

std::string Value::dump() const {
  std::string out;
  dumpTo(out);
  return out;
}

bool parse(std::string_view text, Value* out, std::string* error) {
  return Parser(text).document(out, error);
}

}  // namespace plugstack::json
