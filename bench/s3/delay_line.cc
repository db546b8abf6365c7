// skade_delay_line: a network link with added latency between this network
// namespace and another, for the S3 benchmarks with the object store "far
// away" (bench/README.md "Object storage").
//
// What `tc qdisc add dev … root netem delay 5ms` on one end of a veth pair
// would give, for kernels without sch_netem (this benchmark machine's
// Firecracker kernel has CONFIG_NET_SCH_NETEM unset and loads no modules):
// two TUN devices, one here and one in the namespace, and this process
// forwarding every IP packet from one to the other after a fixed delay per
// direction. Both kernels' TCP stacks see the added round-trip time (slow
// start, ACK clocking, windows), as with netem; only the forwarding itself
// runs in user space (a read and a write per packet, with a 64 KB MTU so
// that bulk transfers are few packets). Packet order is kept; nothing is
// dropped, reordered or rate-limited.
//
// Usage: skade_delay_line --netns NAME --local-device DEV --remote-device DEV
//            [--delay-ms MS] [--return-delay-ms MS]
// Creates the two TUN devices (they vanish when it exits), prints "ready" on
// stdout, and forwards until SIGTERM/SIGINT; the caller then gives them
// addresses and brings them up (ip addr / ip link; see scripts/bench.sh).
// --delay-ms delays packets from here into the namespace, --return-delay-ms
// those coming back (default 0: the round trip grows by --delay-ms, like
// netem on one device). Needs CAP_NET_ADMIN and the namespace in
// /var/run/netns (ip netns add).
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <deque>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kMaxPacket = 65536;

std::atomic<bool> stopping{false};

void Fail(const std::string& what) {
  std::cerr << "skade_delay_line: " << what << ": " << std::strerror(errno) << "\n";
  std::exit(1);
}

// A TUN device `name` (IFF_NO_PI: plain IP packets) in the calling thread's
// network namespace, created if missing and removed when the fd closes.
int OpenTun(const std::string& name) {
  const int fd = ::open("/dev/net/tun", O_RDWR | O_CLOEXEC);
  if (fd < 0) Fail("open /dev/net/tun");
  ifreq request{};
  request.ifr_flags = IFF_TUN | IFF_NO_PI;
  std::strncpy(request.ifr_name, name.c_str(), IFNAMSIZ - 1);
  if (::ioctl(fd, TUNSETIFF, &request) < 0) Fail("TUNSETIFF " + name);
  return fd;
}

void EnterNamespace(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) Fail("open " + path);
  if (::setns(fd, CLONE_NEWNET) < 0) Fail("setns " + path);
  ::close(fd);
}

// One direction of the link: a reader thread stamps each packet with the
// time it may leave, a writer thread sends it then. The queue is unbounded:
// TCP's windows bound what is in flight.
class Direction {
 public:
  Direction(int from, int to, Clock::duration delay) : from_(from), to_(to), delay_(delay) {}

  void Start() {
    reader_ = std::thread([this] { Read(); });
    writer_ = std::thread([this] { Write(); });
  }
  void Join() {
    reader_.join();
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    ready_.notify_all();
    writer_.join();
  }

 private:
  struct Packet {
    Clock::time_point due;
    std::vector<char> bytes;
  };

  void Read() {
    std::vector<char> buffer(kMaxPacket);
    pollfd poll_fd{from_, POLLIN, 0};
    while (!stopping.load()) {
      // Woken every 200 ms to notice a stop request.
      const int ready = ::poll(&poll_fd, 1, 200);
      if (ready < 0 && errno != EINTR) Fail("poll");
      if (ready <= 0) continue;
      const ssize_t n = ::read(from_, buffer.data(), buffer.size());
      if (n < 0) {
        if (errno == EINTR || errno == EAGAIN) continue;
        Fail("read");
      }
      Packet packet{Clock::now() + delay_, std::vector<char>(buffer.data(), buffer.data() + n)};
      {
        std::lock_guard lock(mutex_);
        queue_.push_back(std::move(packet));
      }
      ready_.notify_one();
    }
  }

  void Write() {
    std::unique_lock lock(mutex_);
    while (true) {
      ready_.wait(lock, [this] { return done_ || !queue_.empty(); });
      if (queue_.empty()) return;
      Packet packet = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      std::this_thread::sleep_until(packet.due);
      // A packet the kernel refuses (the device is going down) is dropped,
      // as a wire would.
      (void)!::write(to_, packet.bytes.data(), packet.bytes.size());
      lock.lock();
    }
  }

  const int from_;
  const int to_;
  const Clock::duration delay_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Packet> queue_;  // guarded by mutex_
  bool done_ = false;         // guarded by mutex_
  std::thread reader_;
  std::thread writer_;
};

}  // namespace

int main(int argc, char** argv) {
  std::string netns;
  std::string local_device;
  std::string remote_device;
  double delay_ms = 5;
  double return_delay_ms = 0;
  CLI::App app("A delaying link between this network namespace and another (netem in user space)");
  app.add_option("--netns", netns, "Network namespace (ip netns add NAME)")->required();
  app.add_option("--local-device", local_device, "TUN device here")->required();
  app.add_option("--remote-device", remote_device, "TUN device in the namespace")->required();
  app.add_option("--delay-ms", delay_ms, "Delay of packets into the namespace");
  app.add_option("--return-delay-ms", return_delay_ms, "Delay of packets coming back");
  CLI11_PARSE(app, argc, argv);

  const int local = OpenTun(local_device);
  // setns changes the calling thread's namespace only; the device made
  // there stays there, and this thread comes back for the rest.
  const int home = ::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  if (home < 0) Fail("open /proc/self/ns/net");
  EnterNamespace("/var/run/netns/" + netns);
  const int remote = OpenTun(remote_device);
  if (::setns(home, CLONE_NEWNET) < 0) Fail("setns back");
  ::close(home);

  // Blocked in every thread (they inherit the mask); taken by sigwait below.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto ms = [](double value) {
    return std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double, std::milli>(value));
  };
  Direction out(local, remote, ms(delay_ms));
  Direction back(remote, local, ms(return_delay_ms));
  out.Start();
  back.Start();
  std::cout << "ready" << std::endl;

  int signal = 0;
  sigwait(&signals, &signal);
  stopping = true;
  out.Join();
  back.Join();
  ::close(local);
  ::close(remote);
  return 0;
}
