// weft's local control objects in one include: synchronization that suspends the task,
// never its worker.
#pragma once

#include <weft/lcos/barrier.hpp>
#include <weft/lcos/channel.hpp>
#include <weft/lcos/condition_variable.hpp>
#include <weft/lcos/counting_semaphore.hpp>
#include <weft/lcos/event.hpp>
#include <weft/lcos/latch.hpp>
#include <weft/lcos/mutex.hpp>
#include <weft/lcos/once.hpp>
#include <weft/lcos/shared_mutex.hpp>
#include <weft/lcos/spinlock.hpp>
