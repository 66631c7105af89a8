// A small JSON value type, writer and parser for the host protocol.
//
// Frames between Node and a host process carry one JSON document each. The
// values are small (events, reports), so a simple tree is enough; what
// matters is that malformed input yields an error, never a crash.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace plugstack::json {

class Value;
using Array = std::vector<Value>;
// Insertion order is kept so that emitted events read naturally.
using Object = std::vector<std::pair<std::string, Value>>;

class Value {
 public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Value() : kind_(Kind::Null) {}
  Value(std::nullptr_t) : kind_(Kind::Null) {}
  Value(bool b) : kind_(Kind::Bool), bool_(b) {}
  Value(int n) : kind_(Kind::Number), num_(n) {}
  Value(unsigned n) : kind_(Kind::Number), num_(n) {}
  Value(long n) : kind_(Kind::Number), num_(static_cast<double>(n)) {}
  Value(unsigned long n) : kind_(Kind::Number), num_(static_cast<double>(n)) {}
  Value(long long n) : kind_(Kind::Number), num_(static_cast<double>(n)) {}
  Value(double n) : kind_(Kind::Number), num_(n) {}
  Value(const char* s) : kind_(s ? Kind::String : Kind::Null), str_(s ? s : "") {}
  Value(std::string s) : kind_(Kind::String), str_(std::move(s)) {}
  Value(std::string_view s) : kind_(Kind::String), str_(s) {}
  Value(Array a) : kind_(Kind::Array), arr_(std::make_shared<Array>(std::move(a))) {}
  Value(Object o) : kind_(Kind::Object), obj_(std::make_shared<Object>(std::move(o))) {}

  Kind kind() const { return kind_; }
  bool isNull() const { return kind_ == Kind::Null; }
  bool isString() const { return kind_ == Kind::String; }
  bool isNumber() const { return kind_ == Kind::Number; }
  bool isBool() const { return kind_ == Kind::Bool; }
  bool isArray() const { return kind_ == Kind::Array; }
  bool isObject() const { return kind_ == Kind::Object; }

  bool asBool() const { return bool_; }
  double asNumber() const { return num_; }
  const std::string& asString() const { return str_; }
  const Array& asArray() const;
  const Object& asObject() const;

  // Member lookup on objects; returns a null value when absent.
  const Value& operator[](std::string_view key) const;

  std::string dump() const;

 private:
  void dumpTo(std::string& out) const;

  Kind kind_;
  bool bool_ = false;
  double num_ = 0;
  std::string str_;
  std::shared_ptr<Array> arr_;
  std::shared_ptr<Object> obj_;
};

// Parses a complete document. On failure returns false and sets *error.
bool parse(std::string_view text, Value* out, std::string* error);

// Appends s to out as a JSON string literal. A byte that is not part of
// valid UTF-8 is written as the lone surrogate \uDC80+byte ("surrogateescape",
// as Python does it): the frame stays valid JSON, valid UTF-8 can never
// produce such a code unit, so the Node side maps it back to the exact byte
// (lib/host/bytes.ts). The parser applies the same rule in reverse, which is
// how option values and environments with arbitrary bytes cross the channel.
void quoteTo(std::string& out, std::string_view s);

}  // namespace plugstack::json
