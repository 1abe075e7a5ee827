# Session 21: the ring's double-copy chunk copies timed natively (an uncommitted build that
# timed each memcpy in Rank::sendrecv, HOPSIM_COPY_TIMES=1), against the model's copy rates.
# usage: python3 s21-chunks.py s21-chunksN-profile.json s21-chunksN-ring.txt [apart]
import json,sys,math,re
p={k:v['value'] for k,v in json.load(open(sys.argv[1]))['params'].items()}
sizes=p['sizes']
def at(t,s):
    if s<=sizes[0]: return t[0]
    if s>=sizes[-1]: return t[-1]
    for i in range(1,len(sizes)):
        if sizes[i]>s: break
    x0,x1,x=math.log(sizes[i-1]),math.log(sizes[i]),math.log(s)
    return math.exp(math.log(t[i-1])+(math.log(t[i])-math.log(t[i-1]))*(x-x0)/(x1-x0))
C=65536;slots=4
times=[l for l in open(sys.argv[2]) if l.startswith('COPYTIMES')]
import collections
agg=collections.defaultdict(list)
for l in times:
    m=re.search(r'procs (\d+) size (\d+) out ([\d.]+) GB/s in ([\d.]+)',l)
    agg[(int(m[1]),int(m[2]))].append((float(m[3]),float(m[4])))
apart = len(sys.argv)>3 and sys.argv[3]=='apart'
xw=p['xwrite_bw_apart' if apart else 'xwrite_bw']; xc=p['xcopy_bw_apart' if apart else 'xcopy_bw']
for (n,S),v in sorted(agg.items()):
    k=math.ceil(n/2); ch=min(S,C); ws=k*(S+slots*C)
    slow=max(0,1/at(p['memcpy_bw'],ws)-1/at(p['memcpy_bw'],ch))
    win=1/(1/at(xw,ch)+slow); wout=1/(1/at(xc,ch)+slow)
    sp=sum(p['core_speed'])/len(p['core_speed'])
    print(f"{n}p {S>>10:5d}K native out {sum(a for a,b in v)/len(v):6.2f} in {sum(b for a,b in v)/len(v):6.2f} | model(noWS) out {at(xw,ch)/1e9:6.2f} in {at(xc,ch)/1e9:6.2f} | withWS out {win/1e9:6.2f} in {wout/1e9:6.2f}  (speed {sp:.2f}; memcpy ws {at(p['memcpy_bw'],ws)/1e9:.1f} chunk {at(p['memcpy_bw'],ch)/1e9:.1f})")
