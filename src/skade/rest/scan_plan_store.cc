#include "skade/rest/scan_plan_store.h"

#include <chrono>
#include <map>
#include <mutex>

#include "skade/util/random.h"
#include "skade/util/strings.h"

namespace skade::rest {

namespace {

constexpr size_t kPlanIdBytes = 16;  // 128 bits

int64_t SteadyNowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string PlanTaskToken(std::string_view plan_id, size_t page) {
  return StrCat(plan_id, "-", page);
}

}  // namespace

class ScanPlanStore::Impl {
 public:
  explicit Impl(ScanPlanStoreOptions options) : options_(std::move(options)) {
    if (!options_.now_ms) options_.now_ms = SteadyNowMillis;
  }

  Result<StoredPlan> Add(const PlanOwner& owner, std::vector<std::string> pages) {
    if (pages.empty()) return InternalError("A stored scan plan needs a page");
    size_t bytes = 0;
    for (const auto& page : pages) bytes += page.size();
    if (bytes > options_.max_bytes) {
      return InvalidArgument("The scan plan's ", bytes, " bytes of tasks exceed the ",
                             options_.max_bytes,
                             " bytes the server holds for one plan: narrow the scan");
    }
    SKADE_ASSIGN_OR_RAISE(std::string plan_id, NewPlanId());
    StoredPlan stored{plan_id, {}};
    Entry entry;
    entry.owner = owner;
    entry.bytes = bytes;
    entry.pending = pages.size();
    entry.fetched.assign(pages.size(), false);
    for (size_t i = 0; i < pages.size(); ++i) {
      entry.pages.push_back(std::make_shared<const std::string>(std::move(pages[i])));
      stored.plan_tasks.push_back(PlanTaskToken(plan_id, i));
    }
    std::lock_guard<std::mutex> lock(mutex_);
    const int64_t now = options_.now_ms();
    DropExpired(now);
    while (!plans_.empty() &&
           (plans_.size() >= options_.max_plans || bytes_ + bytes > options_.max_bytes)) {
      auto victim = plans_.begin();
      for (auto it = plans_.begin(); it != plans_.end(); ++it) {
        if (it->second.touched < victim->second.touched) victim = it;
      }
      Erase(victim);
    }
    entry.expires_ms = now + options_.lifetime_ms;
    entry.touched = ++clock_;
    bytes_ += bytes;
    plans_.emplace(std::move(plan_id), std::move(entry));
    return stored;
  }

  Result<std::vector<std::string>> PendingPlanTasks(const PlanOwner& owner,
                                                    std::string_view plan_id) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = Find(owner, plan_id);
    if (it == plans_.end()) return NoSuchPlanId(plan_id);
    std::vector<std::string> tokens;
    for (size_t i = 0; i < it->second.fetched.size(); ++i) {
      if (!it->second.fetched[i]) tokens.push_back(PlanTaskToken(plan_id, i));
    }
    return tokens;
  }

  Result<std::shared_ptr<const std::string>> FetchPage(const PlanOwner& owner,
                                                       std::string_view plan_task) {
    const size_t dash = plan_task.rfind('-');
    auto page =
        dash == std::string_view::npos ? std::nullopt : ParseInt64(plan_task.substr(dash + 1));
    // Only the token the plan handed out: "-00" or "-+0" would name page 0
    // too, and fetch it a second time.
    if (page && std::to_string(*page) != plan_task.substr(dash + 1)) page.reset();
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = page ? Find(owner, plan_task.substr(0, dash)) : plans_.end();
    if (it == plans_.end() || *page < 0 || static_cast<size_t>(*page) >= it->second.pages.size()) {
      return MakeError(ErrorKind::kNoSuchPlanTask, "No such plan task: ", plan_task);
    }
    Entry& entry = it->second;
    auto out = entry.pages[static_cast<size_t>(*page)];
    if (!entry.fetched[static_cast<size_t>(*page)]) {
      entry.fetched[static_cast<size_t>(*page)] = true;
      if (--entry.pending == 0) Erase(it);
    }
    return out;
  }

  Status Cancel(const PlanOwner& owner, std::string_view plan_id) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = Find(owner, plan_id);
    if (it == plans_.end()) return NoSuchPlanId(plan_id);
    Erase(it);
    return OkStatus();
  }

  Stats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return {plans_.size(), bytes_};
  }

 private:
  struct Entry {
    PlanOwner owner;
    std::vector<std::shared_ptr<const std::string>> pages;
    std::vector<bool> fetched;
    size_t pending = 0;
    size_t bytes = 0;
    int64_t expires_ms = 0;
    uint64_t touched = 0;  // clock_ at the last use, for eviction
  };
  using Plans = std::map<std::string, Entry, std::less<>>;

  static tl::unexpected<Error> NoSuchPlanId(std::string_view plan_id) {
    return MakeError(ErrorKind::kNoSuchPlanId, "No such plan id: ", plan_id);
  }

  // Requires mutex_. The live plan `plan_id` of `owner`, touched; end() if none.
  Plans::iterator Find(const PlanOwner& owner, std::string_view plan_id) {
    auto it = plans_.find(plan_id);
    if (it == plans_.end()) return it;
    if (it->second.expires_ms <= options_.now_ms()) {
      Erase(it);
      return plans_.end();
    }
    if (it->second.owner != owner) return plans_.end();
    it->second.touched = ++clock_;
    return it;
  }

  // Requires mutex_.
  void DropExpired(int64_t now) {
    for (auto it = plans_.begin(); it != plans_.end();) {
      if (it->second.expires_ms <= now) {
        bytes_ -= it->second.bytes;
        it = plans_.erase(it);
      } else {
        ++it;
      }
    }
  }

  // Requires mutex_.
  void Erase(Plans::iterator it) {
    bytes_ -= it->second.bytes;
    plans_.erase(it);
  }

  ScanPlanStoreOptions options_;
  mutable std::mutex mutex_;
  Plans plans_;
  size_t bytes_ = 0;
  uint64_t clock_ = 0;
};

ScanPlanStore::ScanPlanStore(ScanPlanStoreOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}
ScanPlanStore::~ScanPlanStore() = default;

Result<std::string> ScanPlanStore::NewPlanId() { return SecureRandomHex(kPlanIdBytes); }

Result<ScanPlanStore::StoredPlan> ScanPlanStore::Add(const PlanOwner& owner,
                                                     std::vector<std::string> pages) {
  return impl_->Add(owner, std::move(pages));
}

Result<std::vector<std::string>> ScanPlanStore::PendingPlanTasks(const PlanOwner& owner,
                                                                 std::string_view plan_id) {
  return impl_->PendingPlanTasks(owner, plan_id);
}

Result<std::shared_ptr<const std::string>> ScanPlanStore::FetchPage(const PlanOwner& owner,
                                                                    std::string_view plan_task) {
  return impl_->FetchPage(owner, plan_task);
}

Status ScanPlanStore::Cancel(const PlanOwner& owner, std::string_view plan_id) {
  return impl_->Cancel(owner, plan_id);
}

ScanPlanStore::Stats ScanPlanStore::stats() const { return impl_->stats(); }

}  // namespace skade::rest
