// Slurm's generic list (list_t) with its iterators, as libslurm exports it:
// the functions slurm.h declares, and the other slurm_list_* names
// libslurm.so exports, so that a plugin linked with -lslurm never hands one
// of plugstack's lists to the real library's code.
//
// The rules are Slurm's: a list owns its items only through the destructor
// given at creation (called by destroy, flush and the delete_* calls, never
// by pop, dequeue or remove); list_sort hands the comparison function
// pointers to the item slots, as qsort does; for_each stops at the first
// negative result and returns minus the number of items visited;
// destroying a list frees its iterators too. An iterator returns the items
// in order; list_remove takes out the item it returned last, list_insert
// puts one before it.
#include <algorithm>
#include <cstdlib>
#include <vector>

#include "common/visibility.h"

// Not including slurm/slurm.h: 22.05's slurm_list_append returns the item
// and 24.11's nothing; the definition below returns it, which a C++
// declaration returning void would contradict.
typedef void (*ListDelF)(void* x);
typedef int (*ListCmpF)(void* x, void* y);
typedef int (*ListFindF)(void* x, void* key);
typedef int (*ListForF)(void* x, void* arg);

struct listIterator;

struct xlist {
  std::vector<void*> items;
  ListDelF destroy = nullptr;
  std::vector<listIterator*> iterators;
};

struct listIterator {
  xlist* list = nullptr;
  size_t next = 0;        // index of the item next() returns
  bool hasLast = false;   // the item at next - 1 was returned and is still there
};

typedef struct xlist list_t;
typedef struct listIterator list_itr_t;

namespace {

void resetIterators(xlist* l) {
  for (listIterator* i : l->iterators) {
    i->next = 0;
    i->hasLast = false;
  }
}

void insertAt(xlist* l, size_t k, void* x) {
  l->items.insert(l->items.begin() + static_cast<long>(k), x);
  for (listIterator* i : l->iterators) {
    // The slot an iterator inserts into is the one before its last item
    // (or its next one): a new item there stays behind it.
    size_t slot = i->hasLast ? i->next - 1 : i->next;
    if (i->next > k || (k == slot && !i->hasLast)) i->next++;
  }
}

void* eraseAt(xlist* l, size_t k) {
  void* x = l->items[k];
  l->items.erase(l->items.begin() + static_cast<long>(k));
  for (listIterator* i : l->iterators) {
    if (i->hasLast && i->next - 1 == k) i->hasLast = false;
    if (i->next > k) i->next--;
  }
  return x;
}

void drop(xlist* l, void* x) {
  if (l->destroy && x) l->destroy(x);
}

}  // namespace

extern "C" {

PLUGSTACK_EXPORT list_t* slurm_list_create(ListDelF f) {
  auto* l = new xlist;
  l->destroy = f;
  return l;
}

PLUGSTACK_EXPORT void slurm_list_destroy(list_t* l) {
  if (!l) return;
  for (listIterator* i : l->iterators) delete i;
  for (void* x : l->items) drop(l, x);
  delete l;
}

PLUGSTACK_EXPORT int slurm_list_is_empty(list_t* l) { return !l || l->items.empty(); }

PLUGSTACK_EXPORT int slurm_list_count(list_t* l) { return l ? static_cast<int>(l->items.size()) : 0; }

// 22.05 returned the item, 24.11 returns nothing: returning it serves both.
PLUGSTACK_EXPORT void* slurm_list_append(list_t* l, void* x) {
  if (l) insertAt(l, l->items.size(), x);
  return x;
}

PLUGSTACK_EXPORT void* slurm_list_prepend(list_t* l, void* x) {
  if (l) insertAt(l, 0, x);
  return x;
}

PLUGSTACK_EXPORT void* slurm_list_push(list_t* l, void* x) { return slurm_list_prepend(l, x); }

PLUGSTACK_EXPORT void* slurm_list_enqueue(list_t* l, void* x) { return slurm_list_append(l, x); }

PLUGSTACK_EXPORT void* slurm_list_pop(list_t* l) {
  return l && !l->items.empty() ? eraseAt(l, 0) : nullptr;
}

PLUGSTACK_EXPORT void* slurm_list_dequeue(list_t* l) { return slurm_list_pop(l); }

PLUGSTACK_EXPORT void* slurm_list_peek(list_t* l) {
  return l && !l->items.empty() ? l->items.front() : nullptr;
}

PLUGSTACK_EXPORT list_t* slurm_list_shallow_copy(list_t* l) {
  auto* copy = new xlist;
  if (l) copy->items = l->items;
  return copy;
}

PLUGSTACK_EXPORT int slurm_list_append_list(list_t* l, list_t* sub) {
  if (!l || !sub) return 0;
  for (void* x : sub->items) insertAt(l, l->items.size(), x);
  return static_cast<int>(sub->items.size());
}

PLUGSTACK_EXPORT int slurm_list_transfer(list_t* l, list_t* sub) {
  if (!l || !sub) return 0;
  int n = 0;
  while (!sub->items.empty()) {
    insertAt(l, l->items.size(), eraseAt(sub, 0));
    n++;
  }
  return n;
}

PLUGSTACK_EXPORT void* slurm_list_find_first(list_t* l, ListFindF f, void* key) {
  if (!l || !f) return nullptr;
  for (void* x : l->items)
    if (f(x, key)) return x;
  return nullptr;
}

PLUGSTACK_EXPORT void* slurm_list_find_first_ro(list_t* l, ListFindF f, void* key) {
  return slurm_list_find_first(l, f, key);
}

PLUGSTACK_EXPORT void* slurm_list_remove_first(list_t* l, ListFindF f, void* key) {
  if (!l || !f) return nullptr;
  for (size_t k = 0; k < l->items.size(); k++)
    if (f(l->items[k], key)) return eraseAt(l, k);
  return nullptr;
}

PLUGSTACK_EXPORT int slurm_list_delete_all(list_t* l, ListFindF f, void* key) {
  if (!l || !f) return 0;
  int n = 0;
  for (size_t k = 0; k < l->items.size();) {
    if (f(l->items[k], key)) {
      drop(l, eraseAt(l, k));
      n++;
    } else {
      k++;
    }
  }
  return n;
}

// 1 when an item matched (and was deleted), -1 when f said stop, else 0.
PLUGSTACK_EXPORT int slurm_list_delete_first(list_t* l, ListFindF f, void* key) {
  if (!l || !f) return 0;
  for (size_t k = 0; k < l->items.size(); k++) {
    int rc = f(l->items[k], key);
    if (rc > 0) {
      drop(l, eraseAt(l, k));
      return 1;
    }
    if (rc < 0) return -1;
  }
  return 0;
}

PLUGSTACK_EXPORT int slurm_list_delete_ptr(list_t* l, void* key) {
  if (!l) return 0;
  for (size_t k = 0; k < l->items.size(); k++)
    if (l->items[k] == key) {
      drop(l, eraseAt(l, k));
      return 1;
    }
  return 0;
}

PLUGSTACK_EXPORT int slurm_list_for_each(list_t* l, ListForF f, void* arg) {
  if (!l || !f) return 0;
  int n = 0;
  // Items may be appended by f: walk by index.
  for (size_t k = 0; k < l->items.size(); k++) {
    n++;
    if (f(l->items[k], arg) < 0) return -n;
  }
  return n;
}

PLUGSTACK_EXPORT int slurm_list_for_each_ro(list_t* l, ListForF f, void* arg) {
  return slurm_list_for_each(l, f, arg);
}

PLUGSTACK_EXPORT int slurm_list_flush(list_t* l) {
  if (!l) return 0;
  int n = static_cast<int>(l->items.size());
  while (!l->items.empty()) drop(l, eraseAt(l, 0));
  return n;
}

PLUGSTACK_EXPORT void slurm_list_sort(list_t* l, ListCmpF f) {
  if (!l || !f || l->items.size() < 2) return;
  std::qsort(l->items.data(), l->items.size(), sizeof(void*),
             reinterpret_cast<int (*)(const void*, const void*)>(f));
  resetIterators(l);
}

PLUGSTACK_EXPORT void slurm_list_flip(list_t* l) {
  if (!l || l->items.size() < 2) return;
  std::reverse(l->items.begin(), l->items.end());
  resetIterators(l);
}

PLUGSTACK_EXPORT list_itr_t* slurm_list_iterator_create(list_t* l) {
  if (!l) return nullptr;
  auto* i = new listIterator;
  i->list = l;
  l->iterators.push_back(i);
  return i;
}

PLUGSTACK_EXPORT void slurm_list_iterator_reset(list_itr_t* i) {
  if (!i) return;
  i->next = 0;
  i->hasLast = false;
}

PLUGSTACK_EXPORT void slurm_list_iterator_destroy(list_itr_t* i) {
  if (!i) return;
  auto& its = i->list->iterators;
  its.erase(std::remove(its.begin(), its.end(), i), its.end());
  delete i;
}

PLUGSTACK_EXPORT void* slurm_list_next(list_itr_t* i) {
  if (!i || i->next >= i->list->items.size()) return nullptr;
  i->hasLast = true;
  return i->list->items[i->next++];
}

PLUGSTACK_EXPORT void* slurm_list_peek_next(list_itr_t* i) {
  return i && i->next < i->list->items.size() ? i->list->items[i->next] : nullptr;
}

PLUGSTACK_EXPORT void* slurm_list_find(list_itr_t* i, ListFindF f, void* key) {
  if (!f) return nullptr;
  void* x;
  while ((x = slurm_list_next(i)) && !f(x, key)) {
  }
  return x;
}

PLUGSTACK_EXPORT void* slurm_list_insert(list_itr_t* i, void* x) {
  if (!i) return nullptr;
  insertAt(i->list, i->hasLast ? i->next - 1 : i->next, x);
  return x;
}

PLUGSTACK_EXPORT void* slurm_list_remove(list_itr_t* i) {
  if (!i || !i->hasLast) return nullptr;
  return eraseAt(i->list, i->next - 1);
}

PLUGSTACK_EXPORT int slurm_list_delete_item(list_itr_t* i) {
  void* x = slurm_list_remove(i);
  if (!x) return 0;
  drop(i->list, x);
  return 1;
}

}  // extern "C"
