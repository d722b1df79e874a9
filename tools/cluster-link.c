/* tools/cluster-link.c: the switch of tools/cluster.sh's cluster, in user
 * space, for kernels without tc's netem (no sch_netem): it delays every
 * frame between the nodes by a fixed time, as a network's latency would.
 *
 *   cluster-link [-d US] [-q FRAMES] [-g] [-e] [-r PRIO] [-R FILE] TAP...
 *   cluster-link -P ADDR [-c COUNT] [-i US] [-s BYTES]   (ping, below)
 *
 * It opens one TAP device per name (IFF_TAP | IFF_NO_PI, in the network
 * namespace it runs in; tools/cluster.sh then moves each into its node and
 * names it collsel0 there: the device stays attached to this process, and
 * goes away when it ends).  It learns the nodes' MAC addresses from the
 * frames' sources, floods broadcast, multicast and unknown destinations to
 * every other port (ARP), and sends each frame to its output US
 * microseconds after it was read, never sooner and as soon after as the
 * timer allows (its counts, below): a FIFO per output port holding each
 * frame's release time, so frames keep their order on every link.  One
 * thread, no busy polling (the nodes' ranks need the processors): it sleeps
 * in ppoll() until a port is readable or the next frame is due, with a timer
 * slack of 1 ns (PR_SET_TIMERSLACK); with -e it waits on the clock only
 * for the few us a timer that came early leaves.
 *
 *   -d US      the one-way delay added, microseconds (default 0)
 *   -q FRAMES  frames queued per output at most (default 512); a frame
 *              read while its output's queue is full is dropped (a switch's
 *              tail drop: TCP resends it)
 *   -g         the TAPs carry a virtio-net header and offload checksums
 *              and TCP segmentation (TUNSETOFFLOAD): the nodes' TCP hands
 *              over frames of up to 64 KiB, passed on whole (fewer frames
 *              per message; the receiving node's stack takes them as GRO
 *              would)
 *   -e         wake before a frame is due by the timer's usual lateness
 *              (below, at "-e:"): frames go out about 2 us after their
 *              release time instead of 7-10 (this machine), never before
 *   -r PRIO    run as SCHED_FIFO at PRIO (a NIC's own processor: a frame
 *              due is sent at once, not after a busy rank's time slice);
 *              a refusal is reported and the switch runs on unprivileged
 *   -R FILE    created once every TAP is open (the caller waits for it)
 *
 * On SIGTERM or SIGINT it prints its counts to stderr (frames forwarded,
 * flooded, dropped; write errors: a frame to a TAP whose node has not set
 * it up yet, EIO, as the nodes' first IPv6 frames at `up`; how late the sends were against their release times:
 * their mean and maximum; with -e the time waited out on the clock) and
 * exits 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* ppoll */
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_PORTS 128
#define MAX_MACS 1024
#define BUF_BYTES (65536 + 256) /* a GSO frame (64 KiB) and its headers */
#define READ_BURST 32           /* frames read from one port per round */

struct buf {
    struct buf *next; /* on the free list */
    unsigned refs;    /* the queues holding it */
    size_t len;
    unsigned char data[BUF_BYTES];
};

struct slot {
    uint64_t due; /* release time, CLOCK_MONOTONIC ns */
    struct buf *b;
};

struct port {
    int fd;
    char name[IFNAMSIZ];
    struct slot *q; /* a ring of qlen slots */
    unsigned head, n;
};

static struct port ports[MAX_PORTS];
static unsigned nports, qlen = 512;
static size_t hdr; /* bytes before the Ethernet header: the virtio-net header with -g */
static struct buf *free_bufs;
static struct {
    unsigned char mac[6];
    unsigned port;
} macs[MAX_MACS];
static unsigned nmacs;
static struct {
    uint64_t frames, floods, drops, write_errors, late_ns, late_max_ns, spins, spin_ns;
} st;
static volatile sig_atomic_t stop;

/* -e: the timer wakes the switch LEAD ns before a frame is due, LEAD the
 * 10th percentile of its lateness over the last WAKE_SAMPLES timer
 * wakeups (at most LEAD_MAX): most wakeups then come at or after the
 * release time, and the few that come before wait out the rest of it on
 * the clock (under LEAD: a few us, in about a tenth of the wakeups), so a
 * frame is still never sent early. */
#define WAKE_SAMPLES 64
#define LEAD_MAX 20000u
static struct {
    uint64_t late[WAKE_SAMPLES], ns;
    unsigned n;
} lead;

static void wake_sample(uint64_t late)
{
    lead.late[lead.n++] = late;
    if (lead.n < WAKE_SAMPLES)
        return;
    lead.n = 0;
    uint64_t sorted[WAKE_SAMPLES];
    memcpy(sorted, lead.late, sizeof sorted);
    for (unsigned i = 1; i < WAKE_SAMPLES; i++) /* insertion sort: 64 values */
        for (unsigned j = i; j > 0 && sorted[j] < sorted[j - 1]; j--) {
            uint64_t x = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = x;
        }
    uint64_t p10 = sorted[WAKE_SAMPLES / 10];
    lead.ns = p10 < LEAD_MAX ? p10 : LEAD_MAX;
}

static void on_signal(int sig) { (void)sig; stop = 1; }

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int open_tap(const char *name, int gso)
{
    struct ifreq ifr;
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "cluster-link: /dev/net/tun: %s\n", strerror(errno));
        return -1;
    }
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI | (gso ? IFF_VNET_HDR : 0);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
        fprintf(stderr, "cluster-link: TAP device '%s': %s\n", name, strerror(errno));
        close(fd);
        return -1;
    }
    if (gso && ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN) < 0) {
        fprintf(stderr, "cluster-link: offloads on '%s': %s\n", name, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

static struct buf *get_buf(void)
{
    struct buf *b = free_bufs;
    if (b) {
        free_bufs = b->next;
        return b;
    }
    return malloc(sizeof *b); /* the pool grows to what is in flight, once */
}

static void put_buf(struct buf *b)
{
    if (--b->refs == 0) {
        b->next = free_bufs;
        free_bufs = b;
    }
}

/* The port a source MAC was last seen on, learned from every frame. */
static int mac_port(const unsigned char *mac)
{
    for (unsigned i = 0; i < nmacs; i++)
        if (memcmp(macs[i].mac, mac, 6) == 0)
            return (int)macs[i].port;
    return -1;
}

static void learn(const unsigned char *mac, unsigned port)
{
    if (mac[0] & 1) /* a group address is never a source */
        return;
    for (unsigned i = 0; i < nmacs; i++)
        if (memcmp(macs[i].mac, mac, 6) == 0) {
            macs[i].port = port;
            return;
        }
    if (nmacs < MAX_MACS) {
        memcpy(macs[nmacs].mac, mac, 6);
        macs[nmacs++].port = port;
    }
}

static void enqueue(unsigned out, struct buf *b, uint64_t due)
{
    struct port *p = &ports[out];
    if (p->n == qlen) {
        st.drops++;
        return;
    }
    struct slot *s = &p->q[(p->head + p->n++) % qlen];
    s->due = due;
    s->b = b;
    b->refs++;
}

/* Sends every frame due by NOW; returns the earliest release time left
 * (UINT64_MAX: none). */
static uint64_t flush(void)
{
    uint64_t next = UINT64_MAX;
    for (unsigned i = 0; i < nports; i++) {
        struct port *p = &ports[i];
        while (p->n) {
            struct slot *s = &p->q[p->head];
            uint64_t t = now_ns();
            if (s->due > t) {
                if (s->due < next)
                    next = s->due;
                break;
            }
            if (write(p->fd, s->b->data, s->b->len) < 0)
                st.write_errors++;
            uint64_t late = t - s->due;
            st.late_ns += late;
            if (late > st.late_max_ns)
                st.late_max_ns = late;
            st.frames++;
            put_buf(s->b);
            p->head = (p->head + 1) % qlen;
            p->n--;
        }
    }
    return next;
}

/* Reads up to READ_BURST frames from port IN and queues each on its
 * output(s), due DELAY ns after it was read; the frames due meanwhile are
 * sent after each (a burst of 64 KiB frames takes a while to copy). */
static void receive(unsigned in, uint64_t delay)
{
    for (int k = 0; k < READ_BURST; k++) {
        struct buf *b = get_buf();
        if (!b) {
            st.drops++;
            return;
        }
        ssize_t len = read(ports[in].fd, b->data, sizeof b->data);
        if (len < (ssize_t)(hdr + 14)) { /* EAGAIN: nothing more; or a runt */
            b->refs = 1;
            put_buf(b);
            if (len < 0)
                return;
            continue;
        }
        uint64_t t = now_ns();
        b->len = (size_t)len;
        b->refs = 1; /* held here until queued */
        const unsigned char *eth = b->data + hdr;
        learn(eth + 6, in);
        int out = (eth[0] & 1) ? -1 : mac_port(eth);
        if (out == (int)in) { /* both ends on one port: nothing to forward */
        } else if (out >= 0) {
            enqueue((unsigned)out, b, t + delay);
        } else {
            st.floods++;
            for (unsigned o = 0; o < nports; o++)
                if (o != in)
                    enqueue(o, b, t + delay);
        }
        put_buf(b);
        flush();
    }
}

/* -P ADDR: the link's round-trip time as ping measures it (ICMP echo over
 * a raw socket: the kernel of the node at ADDR answers; no server needed).
 * COUNT echoes, one at a time, INTERVAL us apart; an echo not answered
 * within 1 s is lost.  Prints the loss and the RTT's min, median, p95 and
 * max in microseconds. */
static unsigned short icmp_sum(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint32_t sum = 0;
    for (size_t i = 0; i + 1 < len; i += 2)
        sum += (uint32_t)(p[i] << 8 | p[i + 1]);
    if (len & 1)
        sum += (uint32_t)(p[len - 1] << 8);
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return htons((unsigned short)~sum);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int ping(const char *addr, long count, long interval_us, long size)
{
    struct sockaddr_in to = {.sin_family = AF_INET};
    if (inet_pton(AF_INET, addr, &to.sin_addr) != 1) {
        fprintf(stderr, "cluster-link: -P takes an IPv4 address (got '%s')\n", addr);
        return 2;
    }
    int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
    if (fd < 0) {
        fprintf(stderr, "cluster-link: raw ICMP socket: %s\n", strerror(errno));
        return 1;
    }
    uint64_t *rtt = calloc((size_t)count, sizeof *rtt);
    unsigned char pkt[65536], in[65536 + 128];
    if (!rtt) {
        fprintf(stderr, "cluster-link: out of memory\n");
        return 1;
    }
    unsigned short id = (unsigned short)getpid();
    long got = 0;
    for (long seq = 0; seq < count; seq++) {
        struct icmphdr *h = (struct icmphdr *)pkt;
        memset(pkt, 0, sizeof *h + (size_t)size);
        h->type = ICMP_ECHO;
        h->un.echo.id = htons(id);
        h->un.echo.sequence = htons((unsigned short)seq);
        h->checksum = icmp_sum(pkt, sizeof *h + (size_t)size);
        uint64_t t0 = now_ns(), limit = t0 + 1000000000u;
        if (sendto(fd, pkt, sizeof *h + (size_t)size, 0, (struct sockaddr *)&to, sizeof to) < 0) {
            fprintf(stderr, "cluster-link: ping %s: %s\n", addr, strerror(errno));
            return 1;
        }
        for (;;) {
            uint64_t t = now_ns();
            if (t >= limit)
                break;
            struct pollfd pf = {.fd = fd, .events = POLLIN};
            int w = (int)((limit - t) / 1000000u) + 1;
            if (poll(&pf, 1, w) <= 0)
                continue;
            ssize_t n = recv(fd, in, sizeof in, 0);
            uint64_t t1 = now_ns();
            if (n < (ssize_t)sizeof(struct iphdr))
                continue;
            size_t ihl = (size_t)(((const struct iphdr *)in)->ihl) * 4;
            const struct icmphdr *r = (const struct icmphdr *)(in + ihl);
            if ((size_t)n >= ihl + sizeof *r && r->type == ICMP_ECHOREPLY &&
                ntohs(r->un.echo.id) == id && ntohs(r->un.echo.sequence) == (unsigned short)seq) {
                rtt[got++] = t1 - t0;
                break;
            }
        }
        struct timespec gap = {interval_us / 1000000, interval_us % 1000000 * 1000};
        nanosleep(&gap, NULL);
    }
    printf("ping %s: %ld sent, %ld received, loss %.1f %%", addr, count, got,
           100.0 * (double)(count - got) / (double)count);
    if (got) {
        qsort(rtt, (size_t)got, sizeof *rtt, cmp_u64);
        double med = got % 2 ? (double)rtt[got / 2] : ((double)rtt[got / 2 - 1] + (double)rtt[got / 2]) / 2;
        printf("; rtt us min %.1f median %.1f p95 %.1f max %.1f", (double)rtt[0] / 1e3, med / 1e3,
               (double)rtt[(size_t)((double)(got - 1) * 0.95 + 0.5)] / 1e3,
               (double)rtt[got - 1] / 1e3);
    }
    printf("\n");
    free(rtt);
    close(fd);
    return got == count ? 0 : 1;
}

static int usage(void)
{
    fprintf(stderr, "usage: cluster-link [-d US] [-q FRAMES] [-g] [-e] [-r PRIO] [-R FILE] TAP...\n"
                    "       cluster-link -P ADDR [-c COUNT] [-i US] [-s BYTES]\n");
    return 2;
}

/* The number of option -C: LO..HI, else one line saying what it takes. */
static int number(int c, const char *arg, long lo, long hi, const char *what, long *v)
{
    char *end;
    *v = strtol(arg, &end, 10);
    if (*end || end == arg || *v < lo || *v > hi) {
        fprintf(stderr, "cluster-link: -%c takes %s %ld..%ld (got '%s')\n", c, what, lo, hi, arg);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    long delay_us = 0, prio = 0, q = qlen, count = 10, interval_us = 1000, size = 56;
    int gso = 0, early = 0, c, bad = 0;
    const char *ready = NULL, *target = NULL;
    while ((c = getopt(argc, argv, "d:q:ger:R:P:c:i:s:h")) != -1) {
        switch (c) {
        case 'd': bad |= number(c, optarg, 0, 10000000, "microseconds", &delay_us); break;
        case 'q': bad |= number(c, optarg, 1, 65536, "frames", &q); break;
        case 'r': bad |= number(c, optarg, 1, 99, "a SCHED_FIFO priority", &prio); break;
        case 'P': target = optarg; break;
        case 'c': bad |= number(c, optarg, 1, 1000000, "a count", &count); break;
        case 'i': bad |= number(c, optarg, 0, 100000000, "microseconds", &interval_us); break;
        case 's': bad |= number(c, optarg, 0, 65000, "bytes", &size); break;
        case 'g': gso = 1; break;
        case 'e': early = 1; break;
        case 'R': ready = optarg; break;
        default: return usage();
        }
    }
    if (bad)
        return 2;
    qlen = (unsigned)q;
    if (target)
        return optind == argc ? ping(target, count, interval_us, size) : usage();
    if (optind == argc || argc - optind > MAX_PORTS)
        return usage();
    hdr = gso ? sizeof(struct virtio_net_hdr) : 0;
    for (int i = optind; i < argc; i++) {
        struct port *p = &ports[nports];
        snprintf(p->name, sizeof p->name, "%s", argv[i]);
        if ((p->fd = open_tap(argv[i], gso)) < 0)
            return 1;
        if (!(p->q = calloc(qlen, sizeof *p->q))) {
            fprintf(stderr, "cluster-link: out of memory\n");
            return 1;
        }
        nports++;
    }
    prctl(PR_SET_TIMERSLACK, 1UL); /* wake at the release time, not 50 us later */
    if (prio) {
        struct sched_param sp = {.sched_priority = (int)prio};
        if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
            fprintf(stderr, "cluster-link: SCHED_FIFO %ld refused (%s): running unprivileged\n",
                    prio, strerror(errno));
    }
    /* SIGTERM / SIGINT are taken only inside ppoll: never mid-frame */
    sigset_t block, wait_mask;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGINT);
    sigprocmask(SIG_BLOCK, &block, &wait_mask);
    sigdelset(&wait_mask, SIGTERM);
    sigdelset(&wait_mask, SIGINT);
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    if (ready) {
        int fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) {
            fprintf(stderr, "cluster-link: %s: %s\n", ready, strerror(errno));
            return 1;
        }
        close(fd);
    }
    struct pollfd pfd[MAX_PORTS];
    for (unsigned i = 0; i < nports; i++)
        pfd[i] = (struct pollfd){.fd = ports[i].fd, .events = POLLIN};
    uint64_t delay = (uint64_t)delay_us * 1000u;
    while (!stop) {
        uint64_t next = flush(), target = 0, w = 0;
        struct timespec ts, *tp = NULL;
        if (next != UINT64_MAX) {
            uint64_t t = now_ns();
            target = next - (early ? lead.ns : 0);
            w = target > t ? target - t : 0;
            ts.tv_sec = (time_t)(w / 1000000000u);
            ts.tv_nsec = (long)(w % 1000000000u);
            tp = &ts;
        }
        int n = ppoll(pfd, nports, tp, &wait_mask);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "cluster-link: ppoll: %s\n", strerror(errno));
            return 1;
        }
        if (n == 0 && early) { /* the timer: learn its lateness, wait out the lead */
            uint64_t t = now_ns();
            if (w > 0)
                wake_sample(t > target ? t - target : 0);
            if (t < next) { /* at most the lead (a few us), in the wakeups the timer was on time */
                uint64_t t0 = t;
                while (t < next)
                    t = now_ns();
                st.spins++;
                st.spin_ns += t - t0;
            }
        }
        for (unsigned i = 0; n > 0 && i < nports; i++)
            if (pfd[i].revents & POLLIN)
                receive(i, delay);
            else if (pfd[i].revents & (POLLERR | POLLHUP | POLLNVAL)) {
                fprintf(stderr, "cluster-link: port %s failed (revents 0x%x)\n", ports[i].name,
                        (unsigned)pfd[i].revents);
                return 1;
            }
    }
    fprintf(stderr,
            "cluster-link: %u ports, delay %ld us: %llu frames sent, %llu flooded, %llu dropped, "
            "%llu write errors; sent late by %.2f us on average, at most %.2f us; "
            "%llu wakeups waited out %.3f ms on the clock (lead %.2f us)\n",
            nports, delay_us, (unsigned long long)st.frames, (unsigned long long)st.floods,
            (unsigned long long)st.drops, (unsigned long long)st.write_errors,
            st.frames ? (double)st.late_ns / (double)st.frames / 1000.0 : 0.0,
            (double)st.late_max_ns / 1000.0, (unsigned long long)st.spins, (double)st.spin_ns / 1e6,
            (double)lead.ns / 1000.0);
    return 0;
}
