#include "rules/parse_time.h"

#include <strings.h>

#include <cctype>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace plugstack {

namespace {

struct Unit {
  const char* name;
  long seconds;
};

// Longest first, so "minutes" is not read as "minute" + "s".
constexpr Unit kUnits[] = {{"seconds", 1},     {"second", 1}, {"minutes", 60},     {"minute", 60},
                           {"hours", 3600},    {"hour", 3600}, {"days", 86400},     {"day", 86400},
                           {"weeks", 604800},  {"week", 604800}};

bool startsWith(const char* s, const char* word) { return strncasecmp(s, word, std::strlen(word)) == 0; }
bool digit(char c) { return c >= '0' && c <= '9'; }

// now+COUNT[UNIT]: digits and at most one unit, blanks ignored.
bool delta(const char*& p, long* out) {
  long count = 0;
  int digits = 0;
  for (; *p && *p != '\n'; p++) {
    if (std::isspace(static_cast<unsigned char>(*p))) continue;
    const Unit* unit = nullptr;
    for (const auto& u : kUnits)
      if (startsWith(p, u.name)) {
        unit = &u;
        break;
      }
    if (unit) {
      count *= unit->seconds;
      p += std::strlen(unit->name);
      break;
    }
    if (!digit(*p)) return false;
    count = count * 10 + (*p - '0');
    digits++;
  }
  if (!digits) return false;
  *out = count;
  return true;
}

// HH:MM[:SS] [AM|PM]
bool clock(const char*& p, int* hour, int* minute, int* second) {
  int h = *p++ - '0';
  if (*p != ':') {
    if (!digit(*p)) return false;
    h = h * 10 + (*p++ - '0');
  }
  if (h > 23 || *p++ != ':' || !digit(p[0]) || !digit(p[1])) return false;
  int m = (p[0] - '0') * 10 + (p[1] - '0');
  p += 2;
  if (m > 59) return false;
  int s = 0;
  if (*p == ':') {
    if (!digit(p[1]) || !digit(p[2])) return false;
    s = (p[1] - '0') * 10 + (p[2] - '0');
    p += 3;
    if (s > 59) return false;
  }
  while (std::isspace(static_cast<unsigned char>(*p))) p++;
  if (startsWith(p, "pm")) {
    h += 12;
    if (h > 23) {
      if (h != 24) return false;
      h = 12;
    }
    p += 2;
  } else if (startsWith(p, "am")) {
    if (h > 11) {
      if (h != 12) return false;
      h = 0;
    }
    p += 2;
  }
  *hour = h;
  *minute = m;
  *second = s;
  return true;
}

// YYYY-MM-DD, or MMDD[YY] / MM/DD[/YY] / MM.DD[.YY]
bool date(const char*& p, int* month, int* mday, int* year) {
  if (std::strlen(p) >= 8 && p[4] == '-' && p[7] == '-') {
    for (int i = 0; i < 4; i++)
      if (!digit(p[i])) return false;
    int y = std::atoi(std::string(p, 4).c_str());
    p += 5;
    int mon = *p++ - '0';
    if (digit(*p)) mon = mon * 10 + (*p++ - '0');
    if (mon < 1 || mon > 12) return false;
    p++;
    if (!digit(*p)) return false;
    int day = *p++ - '0';
    if (digit(*p)) day = day * 10 + (*p++ - '0');
    if (day < 1 || day > 31) return false;
    *month = mon - 1;
    *mday = day;
    *year = y - 1900;
    return true;
  }
  int mon = *p++ - '0';
  if (digit(*p)) mon = mon * 10 + (*p++ - '0');
  if (mon < 1 || mon > 12) return false;
  if (*p == '.' || *p == '/') p++;
  if (!digit(*p)) return false;
  int day = *p++ - '0';
  if (digit(*p)) day = day * 10 + (*p++ - '0');
  if (day < 1 || day > 31) return false;
  if (*p == '.' || *p == '/') p++;
  int y = 0;
  if (digit(*p)) {
    if (!digit(p[1])) return false;
    y = (p[0] - '0') * 10 + (p[1] - '0');
    p += 2;
  }
  *month = mon - 1;
  *mday = day;
  if (y) *year = y + 100;
  return true;
}

}  // namespace

time_t parseSlurmTime(const std::string& text, time_t now) {
  const char* s = text.c_str();
  if (startsWith(s, "uts")) {
    char* end = nullptr;
    long uts = std::strtol(s + 3, &end, 10);
    return (uts < 1000000 || uts == LONG_MAX || *end) ? 0 : static_cast<time_t>(uts);
  }
  struct tm nowTm;
  localtime_r(&now, &nowTm);
  int hour = -1, minute = -1, second = 0, month = -1, mday = -1, year = -1;
  auto dayOf = [&](time_t when) {
    struct tm t;
    localtime_r(&when, &t);
    month = t.tm_mon;
    mday = t.tm_mday;
    year = t.tm_year;
  };
  auto at = [&](int h) {
    hour = h;
    minute = 0;
    second = 0;
  };
  for (const char* p = s; *p && *p != '\n';) {
    if (std::isblank(static_cast<unsigned char>(*p)) || *p == '-' || *p == 'T') {
      p++;
    } else if (startsWith(p, "today")) {
      dayOf(now);
      p += 5;
    } else if (startsWith(p, "tomorrow")) {
      dayOf(now + 86400);
      p += 8;
    } else if (startsWith(p, "midnight")) {
      at(0);
      p += 8;
    } else if (startsWith(p, "noon")) {
      at(12);
      p += 4;
    } else if (startsWith(p, "fika")) {
      at(15);
      p += 4;
    } else if (startsWith(p, "teatime")) {
      at(16);
      p += 7;
    } else if (startsWith(p, "now")) {
      p += 3;
      while (std::isblank(static_cast<unsigned char>(*p))) p++;
      long d = 0;
      if (*p == '+' || *p == '-') {
        bool minus = *p++ == '-';
        if (!delta(p, &d)) return 0;
        if (minus) d = -d;
      } else if (*p && *p != '\n') {
        return 0;
      }
      time_t later = now + d;
      struct tm t;
      localtime_r(&later, &t);
      month = t.tm_mon;
      mday = t.tm_mday;
      year = t.tm_year;
      hour = t.tm_hour;
      minute = t.tm_min;
      second = t.tm_sec;
    } else if (!digit(*p)) {
      return 0;
    } else if (p[1] == ':' || (p[1] && p[2] == ':')) {
      if (!clock(p, &hour, &minute, &second)) return 0;
    } else if (!date(p, &month, &mday, &year)) {
      return 0;
    }
  }
  if (hour == -1 && month == -1) return 0;
  if (hour == -1) {
    hour = 0;
    minute = 0;
  } else if (month == -1) {
    // A time alone is its next occurrence.
    bool today = hour > nowTm.tm_hour || (hour == nowTm.tm_hour && minute > nowTm.tm_min);
    dayOf(today ? now : now + 86400);
  }
  if (year == -1) {
    bool thisYear = month > nowTm.tm_mon || (month == nowTm.tm_mon && mday > nowTm.tm_mday) ||
                    (month == nowTm.tm_mon && mday == nowTm.tm_mday && hour > nowTm.tm_hour) ||
                    (month == nowTm.tm_mon && mday == nowTm.tm_mday && hour == nowTm.tm_hour &&
                     minute > nowTm.tm_min);
    year = thisYear ? nowTm.tm_year : nowTm.tm_year + 1;
  }
  struct tm res = {};
  res.tm_sec = second;
  res.tm_min = minute;
  res.tm_hour = hour;
  res.tm_mday = mday;
  res.tm_mon = month;
  res.tm_year = year;
  res.tm_isdst = -1;
  time_t t = mktime(&res);
  return t == -1 ? 0 : t;
}

std::string slurmTimeText(time_t when) {
  if (when == 0 || when == static_cast<time_t>(0xffffffff)) return "Unknown";
  if (when == static_cast<time_t>(0xfffffffe)) return "None";
  const char* fmt = std::getenv("SLURM_TIME_FORMAT");
  std::string format = "%FT%T";
  if (fmt && *fmt && std::strcmp(fmt, "standard") != 0 && std::strcmp(fmt, "relative") != 0 &&
      std::strchr(fmt, '%') && std::strlen(fmt) < 32)
    format = fmt;
  struct tm t;
  localtime_r(&when, &t);
  char buf[256];
  size_t n = strftime(buf, sizeof buf, format.c_str(), &t);
  return std::string(buf, n);
}

}  // namespace plugstack
